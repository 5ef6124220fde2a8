-- Headless end-to-end test of the Neovim 0.11+ set-up the README shows:
-- vim.lsp.config('agent_lsp', {…}) and vim.lsp.enable('agent_lsp') start the
-- server with the plugin's lsp/agent_lsp.lua, setup({ autostart = false })
-- adds the commands. Run by e2e_test.go; writes "ok", "skip: …" (a Neovim
-- without vim.lsp.config) or the failure to $RESULT, then quits.
local H = dofile(debug.getinfo(1, 'S').source:sub(2):match('(.*/)') .. 'harness.lua')
local root, finish = H.root, H.finish
if not (vim.lsp.config and vim.lsp.enable) then
  local v = vim.version()
  finish(string.format('skip: Neovim %d.%d.%d has no vim.lsp.config', v.major, v.minor, v.patch))
  return
end

H.record(true)
local notes = H.notes
local function wait(ms, cond, what)
  assert(vim.wait(ms, cond, 20), what)
end

local ok, err = pcall(function()
  vim.cmd('filetype on') -- vim.lsp.enable starts servers on FileType
  vim.lsp.config('agent_lsp', { cmd = { os.getenv('AGENT_LSP_BIN') } })
  vim.lsp.enable('agent_lsp')
  local agent = require('agent_lsp')
  agent.setup({ autostart = false })
  vim.cmd('edit ' .. root .. '/hello.py')
  local buf, win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  wait(10000, function() return agent.running() and agent.running().attached_buffers[buf] end, 'vim.lsp.enable did not start and attach the server')
  local c = agent.running()
  assert(c.name == 'agent_lsp', 'client ' .. c.name)
  assert(#vim.lsp.get_clients({ bufnr = buf }) == 1, 'clients: ' .. #vim.lsp.get_clients({ bufnr = buf }))
  local experimental = c.config.capabilities.experimental.agentLsp
  assert(experimental.showsAnswers and experimental.promptInput, 'capabilities: ' .. vim.inspect(experimental))

  -- The proposal is previewed, not applied with Neovim's own confirmation.
  local windows = #vim.api.nvim_list_wins()
  vim.cmd('AgentAsk change the greeting')
  wait(20000, function() return agent.state.previewed ~= nil end, 'no proposal arrived: ' .. vim.inspect(notes))
  assert(#vim.api.nvim_list_wins() == windows + 2, 'windows after the ask: ' .. #vim.api.nvim_list_wins() .. ', before ' .. windows)
  assert(vim.api.nvim_get_current_win() == win and vim.api.nvim_win_get_buf(win) == buf, 'the ask replaced the current window or its buffer')
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(lines[2] == '    return "🐍 Hello, World!"', 'changed before apply: ' .. vim.inspect(lines))
  vim.cmd('AgentApply')
  wait(20000, function() return vim.api.nvim_buf_get_lines(buf, 1, 2, false)[1] == '    return "🐍 Hello, agent!"' end, 'not applied')

  -- The default menu offers "Fix with agent" for another source's diagnostic.
  local ns = vim.api.nvim_create_namespace('e2e_lint')
  vim.diagnostic.set(ns, buf, { { lnum = 0, col = 0, message = 'greet is never called', severity = vim.diagnostic.severity.WARN } })
  vim.api.nvim_win_set_cursor(win, { 1, 0 })
  local titles
  vim.ui.select = function(items, opts, on_choice)
    titles = vim.tbl_map(function(item) return (opts.format_item(item)) end, items)
    on_choice(nil)
  end
  vim.lsp.buf.code_action()
  wait(10000, function() return titles ~= nil end, 'the code-action menu did not open')
  assert(vim.tbl_contains(titles, 'Fix with agent: greet is never called'), 'menu: ' .. vim.inspect(titles))

  vim.cmd('checkhealth agent_lsp')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  assert(report:find('attached to hello.py', 1, true) and report:find('model gpt-test', 1, true), 'checkhealth:\n' .. report)
  assert(not report:find('ERROR', 1, true) and not report:find('WARN', 1, true), 'checkhealth reports a problem:\n' .. report)
  for _, n in ipairs(notes) do
    assert(n.level < vim.log.levels.ERROR, 'an error was shown: ' .. n.msg)
    assert(not n.msg:lower():find('deprecated', 1, true), 'a deprecation was shown: ' .. n.msg)
  end
end)
finish(ok and 'ok' or tostring(err))
