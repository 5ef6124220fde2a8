" :AgentAsk; the agent wants to run a command off the allowlist; the user
" allows it once from the code actions.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
AgentAsk print the greeting
call Until('the question', {-> Seen('wants to run')})
call Pick('^Allow once: ')
call Until('the answer', {-> Seen('Printed it')})
" An answer too late: the plugin echoes the server's error.
AgentCommand agent.approve {"id": "approval-1", "decision": "once"}
call Until('the error', {-> !empty(g:errors)})
call Done()
