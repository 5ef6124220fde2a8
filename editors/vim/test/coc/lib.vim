" The coc.nvim scenario's helpers (Vim 9 and Neovim): what a user does
" with coc.nvim and agent-lsp, and a record of what they see.
"
" The record, in $OUT: messages holds the message history (:messages,
" where coc echoes what the server shows); documents holds each buffer
" the server opened (window/showDocument: the answers), its name and
" lines; result is 'ok' once the scenario ends, or why it failed.
"
" Waits run :sleep, during which coc's channel callbacks and timers run,
" as they do while a user waits; a prompt coc draws meanwhile (a menu, a
" confirm()) waits for keys typed into the terminal, which the Go test
" sends as a user would.

let g:wait_s = 30

function! s:Record() abort
    call writefile(split(execute('messages'), "\n"), $OUT . '/messages')
    let l:docs = []
    for l:b in s:Documents()
        let l:docs += ['== ' . l:b.name] + getbufline(l:b.bufnr, 1, '$')
    endfor
    call writefile(l:docs, $OUT . '/documents')
endfunction

" s:Documents(): the loaded buffers outside the workspace.
function! s:Documents() abort
    return filter(getbufinfo({'bufloaded': 1}), {_, b -> stridx(b.name, $WORKSPACE . '/') != 0})
endfunction

function! Fail(why) abort
    call s:Record()
    call writefile([a:why, "buffer: " . string(getline(1, "$"))], $OUT . "/result")
    cquit!
endfunction

" Until(what, cond): sleep until cond() holds.
function! Until(what, cond) abort
    let l:start = reltime()
    while !a:cond()
        if reltimefloat(reltime(l:start)) > g:wait_s
            call Fail('timed out waiting for ' . a:what)
        endif
        sleep 20m
    endwhile
endfunction

" Seen(pattern): whether coc echoed a message matching pattern.
function! Seen(pattern) abort
    return execute('messages') =~# a:pattern
endfunction

" Opened(pattern): whether a document the server opened matches pattern.
function! Opened(pattern) abort
    for l:b in s:Documents()
        if join(getbufline(l:b.bufnr, 1, '$'), "\n") =~# a:pattern
            return 1
        endif
    endfor
    return 0
endfunction

function! s:Running() abort
    if !get(g:, 'coc_service_initialized', 0)
        return 0
    endif
    return !empty(filter(CocAction('services'), {_, s -> s.id ==# 'languageserver.agent-lsp' && s.state ==# 'running'}))
endfunction

" Open(path): edit the file and wait for coc to start agent-lsp for it.
function! Open(path) abort
    execute 'edit ' . fnameescape(a:path)
    call Until('agent-lsp to start', function('s:Running'))
endfunction

" Changed(): after an edit, the event Vim fires once the user's command
" ends (a scenario runs as one command: none fires by itself); coc sends
" the change on it.
function! Changed() abort
    doautocmd <nomodeline> TextChanged
endfunction

" Choose(title): the choice to make in the next prompt coc shows (a menu
" such as "Choose action" or "Confirm edits", or a confirm()): the Go side
" reads it from $OUT/pick, types its number when the pane shows it, and
" removes the file.
function! Choose(title) abort
    call writefile([a:title], $OUT . '/pick')
endfunction

" Chosen(): wait until the choice was typed.
function! Chosen() abort
    call Until('the choice of ' . join(readfile($OUT . '/pick')), {-> !filereadable($OUT . '/pick')})
endfunction

" Pick(mapping, title): press coc's mapping (coc-codeaction-cursor or
" coc-codeaction-source) and choose title in its menu.
function! Pick(mapping, title) abort
    call Choose(a:title)
    execute "normal \<Plug>(" . a:mapping . ")"
    call Chosen()
endfunction

" Proposal(id): the proposal's state, as agent.status says.
function! Proposal(id) abort
    let l:found = filter(CocAction('runCommand', 'agent.status').proposals, {_, p -> p.id ==# a:id})
    return empty(l:found) ? '' : l:found[0].state
endfunction

" Done(): the scenario passed; record and quit.
function! Done() abort
    call s:Record()
    call writefile(['ok'], $OUT . '/result')
    qall!
endfunction
