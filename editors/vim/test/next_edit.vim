" Rename a function's parameter; the server suggests renaming its use in the
" background (after ALE sends the change); pick "Apply suggested edit: …" on
" that line and ask the server its status, which counts the acceptance.
execute 'source ' . expand('<sfile>:p:h') . '/lib.vim'

call Open($WORKSPACE . '/hello.py')
" The user renames the parameter: cursor on 'name' in 'def greet(name):'.
call cursor(1, 1)
normal! f(lciwwho
call writefile(getline(1, '$'), $OUT . '/renamed')
" On the use's line, :ALECodeAction until the suggestion is there (the first
" asks after ALE has sent the change; the model answers in the background).
call cursor(2, 1)
call Until('the suggested edit', {-> match(Titles(), '^Apply suggested edit: ') >= 0})
call writefile(Titles(), $OUT . '/titles')
call Pick('^Apply suggested edit: ')
call writefile(getline(1, '$'), $OUT . '/applied')
" agent.status, until it counts the suggestion taken (the plugin sends the
" buffer's change first, from which the server knows it).
function! s:Accepted() abort
    let g:results = []
    AgentCommand agent.status
    call Until('the status', {-> Answered('nextEdits')})
    let l:status = filter(copy(g:results), {_, r -> has_key(r, 'nextEdits')})[-1].nextEdits
    call writefile([json_encode(l:status)], $OUT . '/status')
    return l:status.accepted > 0
endfunction
call Until('the acceptance counted', function('s:Accepted'))
call Done()
