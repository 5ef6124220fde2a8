" agent-lsp for Vim with ALE: what ALE's code-action menu cannot do.
"
" ALE has no prompt box and no command to run a server command, so this
" file adds two, sent through ALE's connection to the agent_lsp linter
" (g:agent_lsp_linter) for the current buffer:
"
"   :[range]AgentAsk {prompt}          agent.ask about the lines, or the file
"   :AgentCommand {command} [{json}]   any agent.* command; its result is echoed
"
" The buffer's unsaved text is sent first, as ALE does before a code action.
" Answers come back as window/showMessage. ALE shows only those at or above
" g:ale_lsp_show_message_severity ('error' by default), for every linter;
" this file shows agent-lsp's others itself, as ALE shows a message (echoed,
" or in the preview window when longer than a line), so the answers need no
" change to that setting.

if exists('g:loaded_agent_lsp')
    finish
endif
let g:loaded_agent_lsp = 1

let g:agent_lsp_linter = get(g:, 'agent_lsp_linter', 'agent_lsp')

" Request id -> the function called with the response.
let s:handlers = {}

function! s:OnResponse(conn_id, response) abort
    if has_key(a:response, 'id') && has_key(s:handlers, a:response.id)
        call remove(s:handlers, a:response.id)(a:response)
    endif
endfunction

function! s:OnReady(message, Handler, linter, details) abort
    let l:conn = a:details.connection_id
    call ale#lsp#NotifyForChanges(l:conn, a:details.buffer)
    call ale#lsp#RegisterCallback(l:conn, function('s:OnResponse'))
    let s:handlers[ale#lsp#Send(l:conn, a:message)] = a:Handler
endfunction

" Send workspace/executeCommand {command, [args]} to agent-lsp; Handler gets
" the response.
function! s:Execute(command, args, Handler) abort
    let l:linters = filter(ale#linter#Get(&filetype), {_, l -> l.name is# g:agent_lsp_linter})
    if empty(l:linters)
        echoerr 'agent-lsp: no ' . g:agent_lsp_linter . ' linter for filetype "' . &filetype . '"'
        return
    endif
    let l:message = ale#lsp#message#ExecuteCommand(a:command, [a:args])
    call ale#lsp_linter#StartLSP(bufnr(''), l:linters[0], function('s:OnReady', [l:message, a:Handler]))
endfunction

function! s:Echo(command, response) abort
    if has_key(a:response, 'error')
        echohl ErrorMsg | echomsg a:command . ': ' . a:response.error.message | echohl None
    elseif a:command is# 'agent.ask'
        echomsg 'agent-lsp: ' . a:response.result.runId . ' started; its answer comes as a message'
    else
        echomsg a:command . ': ' . json_encode(a:response.result)
    endif
endfunction

function! s:Ask(prompt, range, line1, line2) abort
    let l:args = {'prompt': a:prompt, 'uri': ale#util#ToURI(expand('%:p'))}
    if a:range > 0
        let l:args.range = {'start': {'line': a:line1 - 1, 'character': 0}, 'end': {'line': a:line2, 'character': 0}}
    endif
    call s:Execute('agent.ask', l:args, function('s:Echo', ['agent.ask']))
endfunction

function! s:Command(command, ...) abort
    let l:args = a:0 ? json_decode(join(a:000)) : {}
    call s:Execute(a:command, l:args, function('s:Echo', [a:command]))
endfunction

" ALE's severities, as g:ale_lsp_show_message_severity names them.
let s:severity = {'disabled': 0, 'error': 1, 'warning': 2, 'information': 3, 'info': 3, 'log': 4}
" The connections whose messages this file watches.
let s:watched = {}

function! s:ShowDropped(conn_id, message) abort
    if get(a:message, 'method', '') isnot# 'window/showMessage'
        return
    endif
    let l:threshold = get(s:severity, tolower(get(g:, 'ale_lsp_show_message_severity', 'error')), 2)
    if a:message.params.type > l:threshold
        call ale#util#ShowMessage(a:message.params.message)
    endif
endfunction

function! s:WatchReady(linter, details) abort
    let l:conn = a:details.connection_id
    if !has_key(s:watched, l:conn)
        let s:watched[l:conn] = 1
        call ale#lsp#RegisterCallback(l:conn, function('s:ShowDropped'))
    endif
endfunction

" Watch agent-lsp's connection for this buffer once ALE has started it.
" Asking ALE for the connection announces it again (ALELSPStarted): the
" nested call returns.
let s:watching = 0
function! s:Watch() abort
    if s:watching
        return
    endif
    let s:watching = 1
    try
        for l:linter in filter(ale#linter#Get(&filetype), {_, l -> l.name is# g:agent_lsp_linter})
            call ale#lsp_linter#StartLSP(bufnr(''), l:linter, function('s:WatchReady'))
        endfor
    finally
        let s:watching = 0
    endtry
endfunction

augroup agent_lsp
    autocmd!
    autocmd User ALELSPStarted call s:Watch()
augroup END

command! -range -nargs=+ AgentAsk call s:Ask(<q-args>, <range>, <line1>, <line2>)
command! -nargs=+ AgentCommand call s:Command(<f-args>)
