-- agent-lsp for Neovim 0.7.2 and newer: starts the server, attaches it to
-- buffers, and gives :AgentAsk, :AgentApply, :AgentDiscard, :AgentCancel and
-- :AgentNewSession. All agent logic stays in the server; this file only asks,
-- previews and answers.
--
-- A proposal is previewed as a unified diff in a scratch buffer before
-- anything changes: the plugin tells the server it cannot confirm annotated
-- edits, so the server sends workspace/applyEdit only when :AgentApply runs
-- agent.applyProposal (Neovim then applies it to the buffers; nothing is saved).
local M = {}

M.state = {
  client_id = nil,
  pending = nil, -- proposal id waiting for :AgentApply / :AgentDiscard
  running = nil, -- run id while a run is going
  progress = '', -- last progress message, for the statusline
  last_answer = nil,
}

local config = {
  cmd = { 'agent-lsp' },
  settings = {}, -- initializationOptions: model, provider, baseUrl, allowlist, …
  filetypes = nil, -- nil: every buffer with a file name
  root_markers = { '.git', 'AGENTS.md', '.agent-lsp.toml' },
}

local function notify(msg, level)
  vim.notify('agent-lsp: ' .. msg, level or vim.log.levels.INFO)
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

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.workspace = caps.workspace or {}
  caps.workspace.workspaceEdit = caps.workspace.workspaceEdit or {}
  -- Neovim applies documentChanges (create, rename, delete) since 0.6 but
  -- does not say so before 0.8.
  caps.workspace.workspaceEdit.documentChanges = true
  caps.workspace.workspaceEdit.resourceOperations = { 'create', 'rename', 'delete' }
  -- Our preview is the diff buffer; keep the server from sending edits that
  -- Neovim >= 0.12 would confirm on its own.
  caps.workspace.workspaceEdit.changeAnnotationSupport = nil
  -- We ask for agent.ask's prompt ourselves (the agent.ask handler below),
  -- so "Ask agent…" code actions carry a command, not a comment template;
  -- and our settings are the user's own (setup() in their init.lua), so the
  -- server takes them whole.
  caps.experimental = vim.tbl_extend('force', caps.experimental or {}, { agentLsp = { promptInput = true, userSettings = true } })
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

-- start launches the server once; later buffers attach to the same client.
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if M.state.client_id == nil or vim.lsp.get_client_by_id(M.state.client_id) == nil then
    local client_config = {
      name = 'agent-lsp',
      cmd = config.cmd,
      root_dir = find_root(vim.api.nvim_buf_get_name(bufnr)),
      init_options = config.settings,
      capabilities = capabilities(),
      handlers = { ['$/progress'] = on_progress },
    }
    if vim.fn.has('nvim-0.11') == 1 then
      -- start_client is deprecated from 0.11; start reuses the client and attaches.
      M.state.client_id = vim.lsp.start(client_config, { bufnr = bufnr, attach = false })
    else
      M.state.client_id = vim.lsp.start_client(client_config)
    end
    if not M.state.client_id then
      notify('could not start ' .. table.concat(config.cmd, ' '), vim.log.levels.ERROR)
      return nil
    end
    -- Ghost text where Neovim has inline completion (0.12+); the server
    -- answers only when a completion model is configured.
    if vim.lsp.inline_completion and vim.lsp.inline_completion.enable then
      pcall(vim.lsp.inline_completion.enable, true, { client_id = M.state.client_id })
    end
  end
  if vim.api.nvim_buf_get_name(bufnr) ~= '' and vim.bo[bufnr].buftype == '' then
    vim.lsp.buf_attach_client(bufnr, M.state.client_id)
  end
  return vim.lsp.get_client_by_id(M.state.client_id)
end

local function client()
  local c = M.state.client_id and vim.lsp.get_client_by_id(M.state.client_id)
  return c or M.start()
end

-- execute runs one agent.* command; on_result gets the result table.
local function execute(command, arg, on_result, bufnr)
  local c = client()
  if not c then
    return
  end
  local params = { command = command, arguments = arg and { arg } or nil }
  c.request('workspace/executeCommand', params, function(err, result)
    if err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if on_result then
      on_result(result or {})
    end
  end, bufnr or vim.api.nvim_get_current_buf())
end

-- scratch opens (or reuses) a named scratch buffer in a split with lines.
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
-- range, strategy, diagnostics), asking for the prompt when it has none, as
-- the "Ask agent…" code action's has not.
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
  if M.state.pending then
    notify(M.state.pending .. ' is still pending; :AgentApply or :AgentDiscard it first', vim.log.levels.WARN)
    return
  end
  client() -- attach before the request so the server has the buffer
  arg = vim.tbl_extend('force', arg, { wait = true })
  M.state.running = true
  M.state.progress = 'starting'
  execute('agent.ask', arg, function(result)
    M.state.running = nil
    M.state.last_answer = result.answer
    if result.state ~= 'completed' then
      notify((result.runId or 'run') .. ' ' .. (result.state or 'ended') .. ': ' .. (result.answer or ''), vim.log.levels.WARN)
      return
    end
    scratch('agent-lsp://answer', 'markdown', split_lines(result.answer))
    if result.diff and result.diff ~= '' then
      M.state.pending = result.proposalId
      scratch('agent-lsp://' .. result.proposalId .. '.diff', 'diff', split_lines(result.diff))
      notify(result.proposalId .. ' ready: :AgentApply to apply it to the buffers, :AgentDiscard to drop it')
    end
  end, bufnr)
end

local function close_preview(id)
  local buf = vim.fn.bufnr('agent-lsp://' .. id .. '.diff')
  if buf ~= -1 then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
end

-- The proposal commands act on the one previewed here, or else on the
-- server's newest pending proposal (from a code action, say).
local function target()
  return M.state.pending and { id = M.state.pending } or {}
end

function M.apply()
  execute('agent.applyProposal', target(), function(result)
    if result.applied then
      M.state.pending = nil
      close_preview(result.id)
      notify(result.id .. ' applied to the buffers (nothing saved)')
    else
      notify(tostring(result.id) .. ' not applied: ' .. (result.reason or ''), vim.log.levels.WARN)
    end
  end)
end

function M.discard()
  execute('agent.discardProposal', target(), function(result)
    M.state.pending = nil
    close_preview(result.id)
    notify(result.id .. ' discarded')
  end)
end

-- preview shows a proposal's diff (the newest pending one by default).
function M.preview()
  execute('agent.showProposal', target(), function(result)
    if result.diff and result.diff ~= '' then
      M.state.pending = result.id
      scratch('agent-lsp://' .. result.id .. '.diff', 'diff', split_lines(result.diff))
    end
  end)
end

function M.cancel()
  execute('agent.cancel', {}, function(result)
    notify('cancelled ' .. table.concat(result.cancelled or {}, ', '))
  end)
end

function M.new_session()
  execute('agent.newSession', nil, function(result)
    notify('new session ' .. tostring(result.session))
  end)
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

function M.setup(opts)
  config = vim.tbl_deep_extend('force', config, opts or {})
  -- The server's code actions run agent.ask through here: the prompt box,
  -- the answer and diff buffers, as :AgentAsk has them.
  vim.lsp.commands['agent.ask'] = function(command, ctx)
    M.ask_with(vim.deepcopy((command.arguments or {})[1] or {}), ctx and ctx.bufnr)
  end
  local cmd = vim.api.nvim_create_user_command
  cmd('AgentAsk', function(o)
    if o.range > 0 then
      M.ask(o.args, o.line1, o.line2)
    else
      M.ask(o.args)
    end
  end, { nargs = '*', range = true, desc = 'Ask the agent (prompt from the arguments, or asked for)' })
  cmd('AgentApply', M.apply, { desc = 'Apply the pending proposal to the buffers' })
  cmd('AgentDiscard', M.discard, { desc = 'Discard the pending proposal' })
  cmd('AgentPreview', M.preview, { desc = 'Show the newest pending proposal as a diff' })
  cmd('AgentCancel', M.cancel, { desc = 'Cancel the running agent' })
  cmd('AgentNewSession', M.new_session, { desc = 'Start a new agent conversation' })
  local group = vim.api.nvim_create_augroup('agent_lsp', { clear = true })
  vim.api.nvim_create_autocmd(config.filetypes and { 'FileType' } or { 'BufReadPost', 'BufNewFile' }, {
    group = group,
    pattern = config.filetypes or '*',
    callback = function(args)
      M.start(args.buf)
    end,
  })
end

return M
