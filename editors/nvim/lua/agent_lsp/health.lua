-- :checkhealth agent_lsp — the binary and its version, the server running
-- and attached, the model it would use (agent.status) and the next-edit
-- model, and Neovim's version.
-- vim.health from Neovim 0.8 (start/ok/… from 0.9, report_* before); the
-- health#report_* functions on 0.7.
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return { start = h.report_start, ok = h.report_ok, info = h.report_info, warn = h.report_warn, error = h.report_error }
  end
  local function fn(name)
    return function(...)
      vim.fn['health#report_' .. name](...)
    end
  end
  return { start = fn('start'), ok = fn('ok'), info = fn('info'), warn = fn('warn'), error = fn('error') }
end

-- status asks the running server for agent.status, nil and why when it can't.
local function status(c)
  local params = { command = 'agent.status' }
  local answer, err
  if vim.fn.has('nvim-0.11') == 1 then
    answer, err = c:request_sync('workspace/executeCommand', params, 5000, 0)
  else
    answer, err = c.request_sync('workspace/executeCommand', params, 5000, 0)
  end
  if not answer then
    return nil, tostring(err)
  end
  if answer.err then
    return nil, answer.err.message or vim.inspect(answer.err)
  end
  return answer.result
end

function M.check()
  local h = reporter()
  local agent = require('agent_lsp')
  h.start('agent-lsp')
  local v = vim.version()
  h.info(string.format('Neovim %d.%d.%d', v.major, v.minor, v.patch))

  -- The command of the server running, else vim.lsp.config's (0.11+), else setup()'s.
  local c = agent.running()
  local cmd = c and c.config.cmd
  if type(cmd) ~= 'table' and vim.lsp.config then
    cmd = (vim.lsp.config.agent_lsp or {}).cmd
  end
  if type(cmd) ~= 'table' then
    cmd = agent.options().cmd or {}
  end
  local bin = cmd[1] and vim.fn.exepath(cmd[1]) or ''
  if bin == '' then
    h.error('the server binary ' .. tostring(cmd[1]) .. ' is not found', {
      'go install ./cmd/agent-lsp from the repository, or name its full path in setup({ cmd = { … } })',
    })
  else
    local out = vim.fn.system({ bin, 'version' })
    if vim.v.shell_error == 0 then
      h.ok('binary ' .. bin .. ': ' .. vim.trim(out))
    else
      h.error('binary ' .. bin .. ' failed: ' .. vim.trim(out))
    end
  end

  if not c then
    h.warn('the server is not running: open a file (setup() starts it), or vim.lsp.enable(\'agent_lsp\') on Neovim 0.11+')
    return
  end
  local st, err = status(c)
  local root = st and type(st.root) == 'string' and st.root or ''
  local buffers = vim.tbl_keys(c.attached_buffers or {})
  table.sort(buffers)
  local names = {}
  for _, b in ipairs(buffers) do
    local name = vim.api.nvim_buf_get_name(b)
    if root ~= '' and name:sub(1, #root + 1) == root .. '/' then
      name = name:sub(#root + 2)
    end
    table.insert(names, name)
  end
  if #names > 0 then
    h.ok(string.format('server running (client %d), attached to %s', c.id, table.concat(names, ', ')))
  else
    h.warn(string.format('server running (client %d) but attached to no buffer', c.id))
  end
  if not st then
    h.error('agent.status failed: ' .. err)
    return
  end
  if root ~= '' then
    h.info('workspace root ' .. root)
  end
  local settings = type(st.settings) == 'string' and st.settings or ''
  local model = settings:match('model=(%S*)') or ''
  if model == '' then
    h.warn('no model configured (' .. settings .. ')', { 'setup({ settings = { model = "…" } }), or AGENT_LSP_MODEL' })
  else
    h.ok('model ' .. model .. ' (' .. settings .. ')')
  end
  local nes = type(st.nextEdits) == 'table' and st.nextEdits or {}
  if type(nes.model) == 'string' and nes.model ~= '' then
    h.ok(string.format('next edit suggestions from %s (%d model calls, %d accepted)', nes.model, nes.calls or 0, nes.accepted or 0))
  else
    h.info('next edit suggestions off: setup({ settings = { nes = { model = "…" } } }) turns them on')
  end
  for _, w in ipairs(type(st.configWarnings) == 'table' and st.configWarnings or {}) do
    h.warn('configuration: ' .. w)
  end
end

return M
