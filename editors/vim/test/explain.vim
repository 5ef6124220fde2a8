" Explain the line at the cursor; then ask the server its status.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
call cursor(2, 5)
call Pick('^Explain with agent$')
call Until('the answer', {-> Seen('It returns a greeting')})
AgentCommand agent.status
call Until('the status', {-> Answered('runs')})
call Done()
