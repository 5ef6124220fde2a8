" The e2e scenarios' helpers: what a user does in Vim with ALE and
" agent-lsp, and a record of what they see.
"
" The record, in $OUT: screen holds everything Vim echoed (:redir), the
" prompts of :ALECodeAction included (and what ran under :silent, which
" :redir records too); previews holds each message ALE showed
" in its preview window (a message too long for the command line), separated
" by '--'; result is 'ok' once a scenario ends, or why it failed.
"
" Waits run Vim's :sleep, during which ALE's channel callbacks run, as they
" do while a user waits. Each ends on what the server sent (window/showMessage,
" seen by a callback of our own on ALE's connection), or fails the scenario
" after g:wait_s seconds.

let g:wait_s = 20
let g:shown = []
let g:results = []
let g:errors = []

execute 'redir! > ' . fnameescape($OUT . '/screen')

function! Fail(why) abort
    call writefile([a:why, 'server messages: ' . string(g:shown),
    \   'ALE errors: ' . string(get(g:, 'ale_lsp_error_messages', {}))], $OUT . '/result')
    redir END
    cquit!
endfunction

function! s:Preview() abort
    call writefile(getline(1, '$') + ['--'], $OUT . '/previews', 'a')
endfunction
autocmd FileType ale-preview.message call s:Preview()

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

function! s:Observe(conn_id, message) abort
    if get(a:message, 'method', '') is# 'window/showMessage'
        call add(g:shown, a:message.params.message)
    elseif type(get(a:message, 'result')) is v:t_dict
        call add(g:results, a:message.result)
    elseif has_key(a:message, 'error')
        call add(g:errors, a:message.error.message)
    endif
endfunction

" Seen(pattern): whether the server sent a message matching pattern.
function! Seen(pattern) abort
    return match(g:shown, a:pattern) >= 0
endfunction

" Answered(key): whether a response's result held key.
function! Answered(key) abort
    return len(filter(copy(g:results), {_, r -> has_key(r, a:key)})) > 0
endfunction

" Open(path): edit the file and let ALE start agent-lsp for it.
function! Open(path) abort
    execute 'edit ' . fnameescape(a:path)
    ALELint
    call Until('agent-lsp to start', {-> !empty(s:Connection())})
    call ale#lsp#RegisterCallback(s:Connection(), function('s:Observe'))
endfunction

function! s:Connection() abort
    for [l:id, l:conn] in items(ale#lsp#GetConnections())
        if l:conn.initialized && has_key(l:conn.open_documents, bufnr(''))
            return l:id
        endif
    endfor
    return ''
endfunction

function! s:Listed(data, items) abort
    let s:listed = map(copy(a:items), 'v:val[1].title')
endfunction

" Titles(): the code actions at the cursor, as ALE's right-click menu lists them.
function! Titles() abort
    let s:listed = v:null
    call ale#codefix#Execute(0, function('s:Listed'))
    call Until('the code actions', {-> s:listed isnot v:null})
    return s:listed
endfunction

" Pick(pattern): :ALECodeAction, answering its 'Type number' prompt with
" the number of the first action whose title matches pattern.
function! Pick(pattern) abort
    let l:titles = Titles()
    let l:n = match(l:titles, a:pattern) + 1
    if l:n == 0
        call Fail('no code action matches ' . a:pattern . ': ' . string(l:titles))
    endif
    call feedkeys(l:n . "\<CR>", 't')
    ALECodeAction
    call Until('the pick of ' . a:pattern, {-> empty(ale#codefix#GetMap())})
endfunction

" Done(): the scenario passed; save what the buffer holds and quit.
function! Done() abort
    call writefile(getline(1, '$'), $OUT . '/buffer')
    call writefile(['ok'], $OUT . '/result')
    redir END
    qall!
endfunction
