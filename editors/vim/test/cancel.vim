" :AgentAsk; the model is slow (the test writes $OUT/model-asked once it is
" asked); the user picks "Cancel agent run".
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
AgentAsk take your time
call Until('the model to be asked', {-> filereadable($OUT . '/model-asked')})
let s:start = reltime()
call Pick('^Cancel agent run')
call Until('the run to end', {-> Seen('Cancelled')})
call writefile([float2nr(reltimefloat(reltime(s:start)) * 1000)], $OUT . '/cancel_ms')
call Done()
