" Ask through an instruction comment; refuse the edit coc asks to confirm
" when the run ends, then apply it from the code actions; save; agent.status
" and agent.ask as workspace commands, the latter's approval answered in
" coc's prompt.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
" An unsaved edit the agent must see.
call append(0, '# greetings, unsaved')
call Changed()
call cursor(3, 5)
call Pick('coc-codeaction-cursor', 'Ask agent…')
call Until('the instruction comment', {-> getline(3) =~# '^    # AGENT: $'})
call setline(3, getline(3) . 'change the greeting')
call Changed()
call cursor(3, 1)
call Pick('coc-codeaction-cursor', 'Agent: change the greeting')
" The run ends: its answer opens as a document, and coc asks to confirm
" its edit: No.
call Choose('No')
call Until('the answer', {-> Opened('Changed the greeting')})
call Chosen()
call Until('the refusal settled', {-> Proposal('proposal-1') !=# 'applying'})
call writefile([Proposal('proposal-1')], $OUT . '/refused')
call writefile(getline(1, '$'), $OUT . '/before')

" The proposal is still there: apply it, and confirm this time.
call Pick('coc-codeaction-source', 'Apply agent proposal')
call Choose('Yes')
call Chosen()
call Until('the proposal to be applied', {-> Proposal('proposal-1') ==# 'applied'})
call writefile(getline(1, '$'), $OUT . '/applied')
wall
call writefile([json_encode(CocAction('runCommand', 'agent.status'))], $OUT . '/status')
" The run asks to run printf: coc's prompt, answered "Allow once".
call Choose('Allow once')
call CocAction('runCommand', 'agent.ask', {'prompt': 'print the greeting'})
call Chosen()
call Until('the second answer', {-> Opened('Printed it')})
call Done()
