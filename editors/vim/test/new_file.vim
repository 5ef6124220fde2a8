" A proposal that edits the open file and creates one: apply it; the new
" file's text is in a buffer of its own, not written.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
AgentAsk add notes
call Until('the answer', {-> Seen('Added notes')})
call Pick('^Apply agent proposal (1 file(s), proposal-1; 1 new file(s) in buffers, not created until you write them)$')
call writefile(getline(1, '$'), $OUT . '/applied')
call writefile(getbufline($WORKSPACE . '/notes.txt', 1, '$'), $OUT . '/new')
call Done()
