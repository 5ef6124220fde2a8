-- Headless end-to-end test of copilot-lsp.nvim's next edit suggestions
-- (github.com/copilotlsp-nvim/copilot-lsp, a checkout the test is given)
-- pointed at agent-lsp with the set-up the README shows: rename a
-- parameter, its NES module shows the suggestion, its functions (what its
-- README maps Tab to) jump to it and apply it. Run by e2e_test.go from the
-- main loop, where typed keys fire TextChanged; writes "ok", "skip: …" (a
-- Neovim before 0.11) or the failure to $RESULT, then quits.
local H = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'harness.lua')
local root, finish = H.root, H.finish
if vim.fn.has('nvim-0.11') == 0 then
  local v = vim.version()
  finish(string.format('skip: copilot-lsp.nvim needs Neovim 0.11+, this is %d.%d.%d', v.major, v.minor, v.patch))
  return
end

H.record(true)
local notes = H.notes

local function sleep(ms)
  local me = coroutine.running()
  vim.defer_fn(function() coroutine.resume(me) end, ms)
  coroutine.yield()
end
local function poll(ms, cond, what)
  local deadline = vim.uv.now() + ms
  while not cond() do
    assert(vim.uv.now() < deadline, what)
    sleep(20)
  end
end

local function run()
  vim.opt.rtp:prepend(os.getenv('COPILOT_LSP_RTP'))
  vim.cmd('runtime plugin/copilot-lsp.lua') -- -u NONE loads no plugins
  vim.cmd('filetype on') -- vim.lsp.enable starts servers on FileType
  vim.cmd('cd ' .. root) -- copilot-lsp.nvim's root_dir is the working directory
  vim.g.copilot_nes_debounce = 50
  -- The README's set-up.
  vim.lsp.config('copilot_ls', {
    cmd = { os.getenv('AGENT_LSP_BIN') },
    init_options = { nes = { model = 'nes-chat', debounceMs = 10 } },
    capabilities = {
      general = { positionEncodings = { 'utf-16' } },
      experimental = { agentLsp = { userSettings = true } },
    },
  })
  vim.lsp.enable('copilot_ls')

  local f = assert(io.open(root .. '/names.py', 'w'))
  f:write('def welcome(name):\n    return "Welcome, " + name\n')
  f:close()
  vim.cmd('edit ' .. root .. '/names.py')
  local buf = vim.api.nvim_get_current_buf()
  local client
  poll(10000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'copilot_ls' })[1]
    return client ~= nil and client.initialized
  end, 'copilot_ls did not start and attach')
  assert(client.offset_encoding == 'utf-16', 'offset encoding ' .. client.offset_encoding)

  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('gg0f(lciwguest<Esc>', true, false, true), 't', false)
  poll(10000, function() return vim.b[buf].nes_state ~= nil end, 'copilot-lsp.nvim showed no suggestion: ' .. vim.inspect(notes))
  local state = vim.b[buf].nes_state
  assert(state.text == 'guest' and state.range.start.line == 1, 'suggestion ' .. vim.inspect(state))
  assert(#vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, {}) > 0, 'no preview marks')

  -- What its README maps Tab to: jump to the edit, then apply it.
  local nes = require('copilot-lsp.nes')
  assert(nes.walk_cursor_start_edit(), 'did not walk to the edit')
  poll(5000, function() return vim.api.nvim_win_get_cursor(0)[1] == 2 end, 'the cursor did not reach the edit')
  assert(nes.apply_pending_nes(), 'nothing to apply')
  local want = { 'def welcome(guest):', '    return "Welcome, " + guest' }
  poll(5000, function() return vim.deep_equal(vim.api.nvim_buf_get_lines(buf, 0, -1, false), want) end,
    'not applied: ' .. vim.inspect(vim.api.nvim_buf_get_lines(buf, 0, -1, false)))

  local status = client:request_sync('workspace/executeCommand', { command = 'agent.status' }, 10000, buf)
  -- It runs no accept command: the server counts the change that applied it.
  assert(status and status.result and status.result.nextEdits.calls >= 1 and status.result.nextEdits.accepted == 1,
    'status ' .. vim.inspect(status))
  for _, n in ipairs(notes) do
    assert(n.level < vim.log.levels.WARN and not n.msg:find('copilot-lsp', 1, true), 'a message: ' .. n.msg)
  end
end

coroutine.wrap(function()
  local ok, err = pcall(run)
  finish(ok and 'ok' or tostring(err))
end)()
