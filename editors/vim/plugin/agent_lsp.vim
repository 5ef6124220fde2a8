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
" Answers come back as window/showMessage, which ALE shows when
" g:ale_lsp_show_message_severity is 'information'.

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

command! -range -nargs=+ AgentAsk call s:Ask(<q-args>, <range>, <line1>, <line2>)
command! -nargs=+ AgentCommand call s:Command(<f-args>)
