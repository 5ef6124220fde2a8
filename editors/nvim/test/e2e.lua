-- Headless end-to-end test, run by e2e_test.go: loads the plugin, edits a
-- buffer without saving (an emoji line before the change), runs :AgentAsk,
-- waits for the diff preview, runs :AgentApply and checks the buffer; then
-- runs the "Ask agent…" code action through the plugin's prompt. Writes
-- "ok" or the failure to $RESULT, then quits.
local result = os.getenv('RESULT')
local function finish(msg)
  local f = io.open(result, 'w')
  f:write(msg)
  f:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  local agent = require('agent_lsp')
  agent.setup({
    cmd = { os.getenv('AGENT_LSP_BIN') },
    -- Completion items: Neovim 0.7 has no inline completion.
    settings = { completion = { items = true, fim = 'suffix', debounceMs = 1 } },
  })
  vim.cmd('edit ' .. os.getenv('WORKSPACE') .. '/hello.py')
  local buf = vim.api.nvim_get_current_buf()
  assert(vim.wait(10000, function() return #vim.lsp.buf_get_clients(buf) > 0 end, 20), 'the client did not attach')
  -- An unsaved edit: the agent must see it.
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '# 🐍 greetings, unsaved' })

  vim.cmd('AgentAsk change the greeting')
  assert(vim.wait(20000, function() return agent.state.pending ~= nil end, 20), 'no proposal arrived')
  local diffbuf = vim.fn.bufnr('agent-lsp://' .. agent.state.pending .. '.diff')
  assert(diffbuf ~= -1, 'no diff preview buffer')
  assert(vim.bo[diffbuf].filetype == 'diff', 'preview filetype is ' .. vim.bo[diffbuf].filetype)
  local diff = table.concat(vim.api.nvim_buf_get_lines(diffbuf, 0, -1, false), '\n')
  assert(diff:find('+    return "🐍 Hello, agent!"', 1, true), 'diff lacks the change:\n' .. diff)
  -- Nothing has changed before :AgentApply.
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  assert(before[3] == '    return "🐍 Hello, World!"', 'changed before apply: ' .. vim.inspect(before))

  vim.cmd('AgentApply')
  assert(vim.wait(20000, function() return agent.state.pending == nil end, 20), 'the proposal was not applied')
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local want = { '# 🐍 greetings, unsaved', 'def greet():', '    return "🐍 Hello, agent!"' }
  assert(vim.deep_equal(lines, want), 'buffer is ' .. vim.inspect(lines))
  assert(vim.bo[buf].modified, 'the buffer should be modified, not saved')
  -- With nothing pending, :AgentPreview finds nothing and changes nothing.
  vim.cmd('AgentPreview')
  assert(vim.fn.bufnr('agent-lsp://answer') ~= -1, 'no answer split')

  -- The code-action menu's "Ask agent…": the plugin says it asks for the
  -- prompt, so the action carries agent.ask (not a comment template), and
  -- the plugin's handler asks and runs it.
  vim.api.nvim_set_current_buf(buf)
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000)
  local ask
  for _, answer in pairs(answers or {}) do
    for _, action in ipairs(answer.result or {}) do
      if action.title == 'Ask agent…' then
        ask = action
      end
    end
  end
  assert(ask and ask.command and ask.command.command == 'agent.ask' and not ask.edit, 'Ask agent… is ' .. vim.inspect(ask))
  vim.ui.input = function(_, on_confirm) on_confirm('explain the greeting') end
  vim.lsp.commands['agent.ask'](ask.command, { bufnr = buf })
  assert(vim.wait(20000, function() return agent.state.last_answer == 'It greets.' end, 20), 'the code action ask did not run: ' .. tostring(agent.state.last_answer))

  -- Completion as items: a suggestion for the line being typed.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'pri' })
  local pos = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 3, character = 3 } }
  local completion = vim.lsp.buf_request_sync(buf, 'textDocument/completion', pos, 10000)
  local item
  for _, answer in pairs(completion or {}) do
    for _, it in ipairs((answer.result or {}).items or {}) do
      item = it
    end
  end
  assert(item and item.textEdit and item.textEdit.newText == 'print(greet())', 'completion: ' .. vim.inspect(completion))
  assert(item.textEdit.range.start.character == 0 and item.textEdit.range['end'].character == 3, 'range ' .. vim.inspect(item.textEdit.range))
end)
finish(ok and 'ok' or tostring(err))
