-- agent-lsp for Neovim 0.7.2 and newer: starts the server, attaches it to
-- buffers, and gives :AgentAsk, :AgentApply, :AgentDiscard, :AgentPreview,
-- :AgentCancel, :AgentActions and :AgentNewSession, and next edit suggestions
-- (next_edit.lua). All agent logic stays in the server; this file only
-- asks, previews and answers.
--
-- A proposal is previewed as a unified diff in a scratch buffer before
-- anything changes: the plugin tells the server it cannot confirm annotated
-- edits, so the server sends workspace/applyEdit only when agent.applyProposal
-- runs (Neovim then applies it to the buffers; nothing is saved). The plugin
-- also says it shows answers itself (experimental.agentLsp.showsAnswers), so
-- the server opens no document of its own (Neovim 0.10+ declares
-- showDocument and would open each answer in a window of its own).
--
-- Which proposal is pending is the server's to say: the plugin asks it
-- (agent.status) before an ask and after every apply or discard, however
-- it was made, and never refuses an ask on its own memory.
local M = {}

M.state = {
  client_id = nil,
  pending = nil, -- the server's newest pending proposal, when last asked
  previewed = nil, -- the proposal whose diff the plugin shows
  running = nil, -- true while a run the plugin waits for is going
  progress = '', -- last progress message, for the statusline
  last_answer = nil,
}

local config = {
  cmd = { 'agent-lsp' },
  settings = {}, -- initializationOptions: model, provider, baseUrl, allowlist, …
  filetypes = nil, -- nil: every buffer with a file name
  root_markers = { '.git', 'AGENTS.md', '.agent-lsp.toml' },
  -- false: the server is started elsewhere (vim.lsp.enable('agent_lsp') on
  -- Neovim 0.11+, with the plugin's lsp/agent_lsp.lua); setup() then only
  -- adds the commands.
  autostart = true,
  -- Next edit suggestions (next_edit.lua): keys and debounce; the server
  -- suggests only with a next-edit model (settings.nes.model).
  next_edit = { enabled = true },
}

-- options returns the plugin's configuration (for :checkhealth).
function M.options()
  return config
end

local function has(feature)
  return vim.fn.has(feature) == 1
end

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
end

-- request sends a request on client c: Neovim 0.11 made the client's
-- functions methods (c:request); before they were fields (c.request).
local function request(c, method, params, handler, bufnr)
  if has('nvim-0.11') then
    return c:request(method, params, handler, bufnr)
  end
  return c.request(method, params, handler, bufnr)
end

-- list is t when it is a list, else an empty one (JSON null is vim.NIL).
local function list(t)
  return type(t) == 'table' and t or {}
end

-- find_root is the directory holding the first root marker found upwards.
local function find_root(path)
  local dir = vim.fn.fnamemodify(path ~= '' and path or vim.fn.getcwd(), ':p:h')
  for _, marker in ipairs(config.root_markers) do
    local hit = vim.fn.finddir(marker, dir .. ';')
    if hit == '' then
      hit = vim.fn.findfile(marker, dir .. ';')
    end
    if hit ~= '' then
      local full = vim.fn.fnamemodify(hit, ':p'):gsub('/$', '')
      return vim.fn.fnamemodify(full, ':h')
    end
  end
  return dir
end
M.root = find_root

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  -- Neovim applies documentChanges (create, rename, delete) since 0.6 but
  -- does not say so before 0.8.
  caps.workspace.workspaceEdit.documentChanges = true
  caps.workspace.workspaceEdit.resourceOperations = { 'create', 'rename', 'delete' }
  -- Our preview is the diff buffer; keep the server from sending edits that
  -- Neovim >= 0.12 would confirm on its own. null, not nil: Neovim 0.11+
  -- lays our capabilities over its defaults, where nil would keep its own.
  caps.workspace.workspaceEdit.changeAnnotationSupport = vim.NIL
  -- We ask for agent.ask's prompt ourselves (the agent.ask handler below),
  -- so "Ask agent…" code actions carry a command, not a comment template;
  -- we show answers and diffs from the commands' results, so the server
  -- opens no document of them; and our settings are the user's own
  -- (setup() in their init.lua), so the server takes them whole; we show
  -- next edits ourselves (next_edit.lua), so the server does not also put
  -- them in inline completion (0.12+).
  caps.experimental = vim.tbl_extend('force', caps.experimental or {}, {
    agentLsp = {
      promptInput = true,
      showsAnswers = true,
      userSettings = true,
      showsInlineEdits = config.next_edit.enabled ~= false,
    },
  })
  return caps
end

local function on_progress(err, result, ctx, cfg)
  local default = vim.lsp.handlers['$/progress']
  if default then
    pcall(default, err, result, ctx, cfg)
  end
  if result and type(result.value) == 'table' then
    local v = result.value
    local msg = v.message or v.title or ''
    if v.kind == 'end' then
      M.state.progress = ''
      vim.api.nvim_echo({ { 'agent-lsp: ' .. msg, 'None' } }, false, {})
    else
      M.state.progress = msg
      vim.api.nvim_echo({ { 'agent-lsp: ' .. msg, 'Comment' } }, false, {})
    end
  end
end

-- exact_new_file gives buffer buf, just created by a workspace edit and
-- filled with text, exactly text: Neovim inserts a new file's text into a
-- buffer that already holds one empty line, which :w would write as an
-- extra blank line at the end.
local function exact_new_file(buf, text)
  local want = vim.split(text, '\n', { plain = true })
  local eol = text:sub(-1) == '\n'
  if eol then
    table.remove(want) -- the final newline is the buffer's 'eol', not a line
  end
  local have = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if #have == #want + 1 and have[#have] == '' and vim.deep_equal(vim.list_slice(have, 1, #want), want) then
    vim.api.nvim_buf_set_lines(buf, #want, #want + 1, false, {})
  end
  if not eol then
    vim.bo[buf].eol = false
    vim.bo[buf].fixeol = false
  end
end

-- on_apply_edit applies a workspace edit as Neovim does, then makes the
-- files it creates hold exactly the text the server sent.
local function on_apply_edit(err, params, ctx, cfg)
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx, cfg)
  if not (result and result.applied and params and params.edit) then
    return result
  end
  local created = {}
  for _, change in ipairs(list(params.edit.documentChanges)) do
    if change.kind == 'create' then
      created[change.uri] = true
    elseif change.kind == nil and change.textDocument and created[change.textDocument.uri] then
      local text = {}
      for _, e in ipairs(list(change.edits)) do
        table.insert(text, e.newText)
      end
      exact_new_file(vim.uri_to_bufnr(change.textDocument.uri), table.concat(text))
    end
  end
  return result
end

-- on_show_message shows the server's messages with vim.notify (Neovim 0.7
-- to 0.10 write them to the message area, where a long one scrolls away): the
-- answer of a run the plugin did not wait for (a plan picked from the menu)
-- comes this way.
local function on_show_message(_, result)
  local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.DEBUG }
  if result and result.message then
    vim.notify(result.message, levels[result.type] or vim.log.levels.INFO)
  end
end

-- lsp_diagnostic is vim.diagnostic d of buffer bufnr as an LSP diagnostic,
-- positions in the client's encoding.
local function lsp_diagnostic(bufnr, d, encoding)
  local last = vim.api.nvim_buf_line_count(bufnr) - 1
  local function pos(row, col)
    row = math.min(row or 0, last)
    local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
    col = math.min(col or 0, #line)
    return { line = row, character = vim.lsp.util.character_offset(bufnr, row, col, encoding) }
  end
  local out = {
    range = { start = pos(d.lnum, d.col), ['end'] = pos(d.end_lnum or d.lnum, d.end_col or d.col) },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = d.code,
  }
  local lsp = type(d.user_data) == 'table' and d.user_data.lsp
  return type(lsp) == 'table' and vim.tbl_extend('keep', out, lsp) or out
end

-- with_line_diagnostics adds to a textDocument/codeAction request the
-- diagnostics of every source on the lines of its range: Neovim 0.8+ sends
-- a server only its own (0.7 sent them all), and the server makes its
-- "Fix with agent" entries from them.
local function with_line_diagnostics(params, encoding)
  if type(params) ~= 'table' or not params.textDocument or not params.range then
    return
  end
  local bufnr = vim.uri_to_bufnr(params.textDocument.uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local context = params.context or {}
  local seen, all = {}, {}
  for _, d in ipairs(list(context.diagnostics)) do
    seen[d.range.start.line .. ':' .. d.message] = true
    table.insert(all, d)
  end
  local first, last = params.range.start.line, params.range['end'].line
  if params.range['end'].character == 0 and last > first then
    last = last - 1 -- a selection of whole lines ends at the start of the next one
  end
  for lnum = first, last do
    for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = lnum })) do
      local ld = lsp_diagnostic(bufnr, d, encoding)
      if not seen[ld.range.start.line .. ':' .. ld.message] then
        seen[ld.range.start.line .. ':' .. ld.message] = true
        table.insert(all, ld)
      end
    end
  end
  -- A new context: Neovim may share the one it was given between clients.
  params.context = vim.tbl_extend('force', context, { diagnostics = all })
end

-- register makes c the plugin's client, however it was started (setup()'s
-- autostart, or vim.lsp.enable with lsp/agent_lsp.lua): its code-action
-- requests carry every source's diagnostics on the lines asked about.
function M.register(c)
  if not c then
    return
  end
  M.state.client_id = c.id
  if c._agent_lsp_registered then
    return
  end
  c._agent_lsp_registered = true
  local inner = c.request
  -- c:request(method, …) from Neovim 0.11, c.request(method, …) before.
  -- A failure here leaves the request as Neovim made it.
  c.request = function(a, b, ...)
    if type(a) == 'table' then
      if b == 'textDocument/codeAction' then
        pcall(with_line_diagnostics, (...), c.offset_encoding)
      end
    elseif a == 'textDocument/codeAction' then
      pcall(with_line_diagnostics, b, c.offset_encoding)
    end
    return inner(a, b, ...)
  end
end

-- lsp_config is the client's configuration: for vim.lsp.start, and for
-- vim.lsp.config (Neovim 0.11+, lsp/agent_lsp.lua returns it).
function M.lsp_config()
  return {
    cmd = config.cmd,
    -- None rather than {}, which would go as [] (Lua has one table for both).
    init_options = next(config.settings) ~= nil and config.settings or nil,
    capabilities = capabilities(),
    handlers = {
      ['$/progress'] = on_progress,
      ['workspace/applyEdit'] = on_apply_edit,
      ['window/showMessage'] = on_show_message,
    },
    on_init = function(c)
      M.register(c)
    end,
  }
end

-- start launches the server once; later buffers attach to the same client.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if M.state.client_id == nil or vim.lsp.get_client_by_id(M.state.client_id) == nil then
    if not config.autostart then
      notify("the server is not running: vim.lsp.enable('agent_lsp') starts it", vim.log.levels.WARN)
      return nil
    end
    local client_config = vim.tbl_extend('force', M.lsp_config(), {
      name = 'agent-lsp',
      root_dir = find_root(vim.api.nvim_buf_get_name(bufnr)),
    })
    local id
    if has('nvim-0.11') then
      -- start_client is deprecated from 0.11; start reuses the client and attaches.
      id = vim.lsp.start(client_config, { bufnr = bufnr, attach = false })
    else
      id = vim.lsp.start_client(client_config)
    end
    if not id then
      notify('could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    M.register(vim.lsp.get_client_by_id(id))
    -- Ghost text where Neovim has inline completion (0.12+); the server
    -- answers only when a completion model is configured.
    if vim.lsp.inline_completion and vim.lsp.inline_completion.enable then
      pcall(vim.lsp.inline_completion.enable, true, { client_id = id })
    end
  end
  if vim.api.nvim_buf_get_name(bufnr) ~= '' and vim.bo[bufnr].buftype == '' then
    vim.lsp.buf_attach_client(bufnr, M.state.client_id)
  end
  return vim.lsp.get_client_by_id(M.state.client_id)
end

-- running is the plugin's client when it runs, without starting one.
function M.running()
  return M.state.client_id and vim.lsp.get_client_by_id(M.state.client_id) or nil
end

local function client()
  return M.running() or M.start()
end

-- execute runs one agent.* command with arg (nil: none); on_result gets
-- the result table, after (when given) runs once the answer came, error or not.
local function execute(command, arg, on_result, bufnr, after)
  local c = client()
  if not c then
    return
  end
  local params = { command = command, arguments = arg and { arg } or nil }
  request(c, 'workspace/executeCommand', params, function(err, result)
    if err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif on_result then
      on_result(type(result) == 'table' and result or {})
    end
    if after then
      after()
    end
  end, bufnr or vim.api.nvim_get_current_buf())
end

-- scratch opens (or reuses) a named scratch buffer in a split with lines;
-- the current window keeps its buffer.
local function scratch(name, filetype, lines)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  if vim.fn.bufwinnr(buf) == -1 then
    local cur = vim.api.nvim_get_current_win()
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_set_current_win(cur)
  end
  return buf
end

local function split_lines(s)
  return vim.split((s or ''):gsub('\n$', ''), '\n', { plain = true })
end

local function preview_name(id)
  return 'agent-lsp://' .. id .. '.diff'
end

local function close_preview(id)
  local buf = id and vim.fn.bufnr(preview_name(id)) or -1
  if buf ~= -1 then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
  if M.state.previewed == id then
    M.state.previewed = nil
  end
end

local function show_diff(id, diff)
  M.state.pending, M.state.previewed = id, id
  scratch(preview_name(id), 'diff', split_lines(diff))
end

-- sync asks the server which proposals are pending: M.state.pending becomes
-- the one previewed here if it still is, else the newest; a preview of a
-- proposal applied or discarded meanwhile (from the code-action menu, say)
-- closes. on_done runs after, whatever the answer.
function M.sync(on_done)
  execute('agent.status', nil, function(status)
    local states, newest = {}, nil
    for _, p in ipairs(list(status.proposals)) do
      states[p.id] = p.state
      if p.state == 'pending' then
        newest = p.id
      end
    end
    if M.state.previewed and states[M.state.previewed] ~= 'pending' then
      close_preview(M.state.previewed)
    end
    M.state.pending = M.state.previewed or newest
  end, nil, on_done)
end

-- ask sends agent.ask for the buffer (and lines line1..line2 when given) and
-- previews the result.
function M.ask(prompt, line1, line2)
  local bufnr = vim.api.nvim_get_current_buf()
  local arg = { prompt = prompt }
  if vim.api.nvim_buf_get_name(bufnr) ~= '' then
    arg.uri = vim.uri_from_bufnr(bufnr)
    if line1 and line2 then
      arg.range = { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2, character = 0 } }
    end
  end
  M.ask_with(arg, bufnr)
end

-- ask_with sends agent.ask with arg (the server's arguments: prompt, uri,
-- range, strategy, mode, diagnostics), asking for the prompt when it has
-- none, as the "Ask agent…" code action's has not. It asks the server first
-- whether a proposal is pending: a new run's changes would be made without it.
function M.ask_with(arg, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not arg.prompt or vim.trim(arg.prompt) == '' then
    vim.ui.input({ prompt = 'Ask agent: ' }, function(input)
      if input and vim.trim(input) ~= '' then
        M.ask_with(vim.tbl_extend('force', arg, { prompt = input }), bufnr)
      end
    end)
    return
  end
  client() -- attach before the request so the server has the buffer
  M.sync(function()
    if M.state.pending and arg.mode ~= 'ask' then
      notify(M.state.pending .. ' is still pending: :AgentApply or :AgentDiscard it first (:AgentPreview shows it)', vim.log.levels.WARN)
      return
    end
    M.run(arg, bufnr)
  end)
end

-- run sends agent.ask and waits for its end: the answer opens in a markdown
-- split, a proposal's diff in a diff split.
function M.run(arg, bufnr)
  arg = vim.tbl_extend('force', arg, { wait = true })
  M.state.running = true
  M.state.progress = 'starting'
  execute('agent.ask', arg, function(result)
    M.state.last_answer = result.answer
    if result.state ~= 'completed' then
      notify((result.runId or 'run') .. ' ' .. (result.state or 'ended') .. ': ' .. (result.answer or ''), vim.log.levels.WARN)
      return
    end
    scratch('agent-lsp://answer', 'markdown', split_lines(result.answer))
    if result.diff and result.diff ~= '' then
      show_diff(result.proposalId, result.diff)
      notify(result.proposalId .. ' ready: :AgentApply to apply it to the buffers, :AgentDiscard to drop it')
    end
  end, bufnr, function()
    M.state.running = nil
  end)
end

-- proposal_arg names proposal id, else the one previewed here; nil leaves
-- the choice to the server (its newest pending proposal).
local function proposal_arg(id)
  id = id or M.state.previewed
  return id and { id = id } or nil
end

function M.apply(id)
  execute('agent.applyProposal', proposal_arg(id), function(result)
    if result.applied then
      close_preview(result.id)
      notify(result.id .. ' applied to the buffers (nothing saved)')
    else
      notify(tostring(result.id) .. ' not applied: ' .. (result.reason or ''), vim.log.levels.WARN)
    end
  end, nil, M.sync)
end

function M.discard(id)
  execute('agent.discardProposal', proposal_arg(id), function(result)
    close_preview(result.id)
    notify(result.id .. ' discarded')
  end, nil, M.sync)
end

-- preview shows a proposal's diff (the newest pending one by default) in a
-- split; with nothing pending it says so.
function M.preview(id)
  M.sync(function()
    id = id or M.state.pending
    if not id then
      notify('no proposal is pending')
      return
    end
    execute('agent.showProposal', { id = id }, function(result)
      if result.diff and result.diff ~= '' then
        show_diff(result.id, result.diff)
      end
    end)
  end)
end

function M.cancel(id)
  execute('agent.cancel', id and { id = id } or nil, function(result)
    local cancelled = list(result.cancelled)
    if #cancelled == 0 then
      notify('no run to cancel')
    else
      notify('cancelled ' .. table.concat(cancelled, ', '))
    end
  end)
end

function M.new_session()
  execute('agent.newSession', nil, function(result)
    notify('new session ' .. tostring(result.session))
  end)
end

-- set_options sets the model or thinking of the next runs (agent.setSessionOptions:
-- '' returns to the settings) and says what is now in force.
function M.set_options(opts)
  execute('agent.setSessionOptions', opts, function(result)
    local model = result.model ~= '' and result.model or 'as configured'
    local thinking = result.thinking ~= '' and result.thinking or 'default'
    notify('next runs: model ' .. model .. ', thinking ' .. thinking)
  end)
end

-- is_agent_action says a code action is agent-lsp's (its command is agent.*).
local function is_agent_action(action)
  local command = type(action.command) == 'table' and action.command.command or action.command
  return type(command) == 'string' and command:find('^agent%.') ~= nil
end

-- actions opens the code-action menu with agent-lsp's actions only (Neovim
-- 0.8+; 0.7 lists every server's), for the cursor's line or lines line1..line2.
function M.actions(line1, line2)
  if not has('nvim-0.8') then
    if line1 and line2 then
      vim.lsp.buf.range_code_action(nil, { line1, 0 }, { line2, 0 })
    else
      vim.lsp.buf.code_action()
    end
    return
  end
  local opts = { filter = is_agent_action }
  if line1 and line2 then
    opts.range = { start = { line1, 0 }, ['end'] = { line2, math.max(#vim.fn.getline(line2) - 1, 0) } }
  end
  vim.lsp.buf.code_action(opts)
end

-- statusline returns the current run's progress, for 'statusline'.
function M.statusline()
  if M.state.running then
    return 'agent: ' .. M.state.progress
  end
  if M.state.pending then
    return 'agent: ' .. M.state.pending .. ' pending'
  end
  return ''
end

-- menu_id is the proposal or run a code action's command names.
local function menu_id(command)
  local arg = (command.arguments or {})[1]
  return type(arg) == 'table' and arg.id or nil
end

function M.setup(opts)
  config = vim.tbl_deep_extend('force', config, opts or {})
  -- The server's code actions run through here: agent.ask with the prompt
  -- box and the answer and diff buffers, as :AgentAsk has them, and the
  -- proposal and cancel commands as their own commands, so what the user
  -- picks in the menu shows its result and the plugin follows it.
  vim.lsp.commands['agent.ask'] = function(command, ctx)
    M.ask_with(vim.deepcopy((command.arguments or {})[1] or {}), ctx and ctx.bufnr)
  end
  vim.lsp.commands['agent.applyProposal'] = function(command)
    M.apply(menu_id(command))
  end
  vim.lsp.commands['agent.discardProposal'] = function(command)
    M.discard(menu_id(command))
  end
  vim.lsp.commands['agent.showProposal'] = function(command)
    M.preview(menu_id(command))
  end
  vim.lsp.commands['agent.cancel'] = function(command)
    M.cancel(menu_id(command))
  end
  local cmd = vim.api.nvim_create_user_command
  cmd('AgentAsk', function(o)
    if o.range > 0 then
      M.ask(o.args, o.line1, o.line2)
    else
      M.ask(o.args)
    end
  end, { nargs = '*', range = true, desc = 'Ask the agent (prompt from the arguments, or asked for)' })
  cmd('AgentApply', function()
    M.apply()
  end, { desc = 'Apply the pending proposal to the buffers' })
  cmd('AgentDiscard', function()
    M.discard()
  end, { desc = 'Discard the pending proposal' })
  cmd('AgentPreview', function()
    M.preview()
  end, { desc = 'Show the newest pending proposal as a diff' })
  cmd('AgentCancel', function()
    M.cancel()
  end, { desc = 'Cancel the running agent' })
  cmd('AgentNewSession', M.new_session, { desc = 'Start a new agent conversation' })
  cmd('AgentModel', function(o)
    M.set_options({ model = o.args })
  end, { nargs = '?', desc = "The model of the next runs (no argument: the configured one)" })
  cmd('AgentThinking', function(o)
    M.set_options({ thinking = o.args })
  end, {
    nargs = '?',
    complete = function()
      return { 'default', 'minimal', 'low', 'medium', 'high' }
    end,
    desc = 'How hard the model thinks in the next runs',
  })
  cmd('AgentActions', function(o)
    if o.range > 0 then
      M.actions(o.line1, o.line2)
    else
      M.actions()
    end
  end, { range = true, desc = "The agent's code actions for the line (or the selected lines)" })
  require('agent_lsp.next_edit').setup(config.next_edit)
  local group = vim.api.nvim_create_augroup('agent_lsp', { clear = true })
  if not config.autostart then
    return
  end
  vim.api.nvim_create_autocmd(config.filetypes and { 'FileType' } or { 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = config.filetypes or '*',
    callback = function(args)
      M.start(args.buf)
    end,
  })
end

return M
