-- What the headless test scripts share: the result file e2e_test.go reads,
-- and a record of what the user was shown. Each script loads it with
-- dofile from its own directory.
local H = { root = os.getenv('WORKSPACE'), notes = {}, deprecated = {} }

-- finish writes msg ("ok", "skip: …" or the failure) for e2e_test.go and
-- quits.
function H.finish(msg)
  local f = io.open(os.getenv('RESULT'), 'w')
  f:write(msg)
  f:close()
  vim.cmd('qall!')
end

-- record keeps every message shown through vim.notify in H.notes, and
-- every use of a deprecated function in H.deprecated (the plugin's own
-- only, when plugin_only: Neovim's runtime has its own).
function H.record(plugin_only)
  local notify = vim.notify
  vim.notify = function(msg, level, opts)
    table.insert(H.notes, { msg = tostring(msg), level = level or vim.log.levels.INFO })
    return notify(msg, level, opts)
  end
  local deprecate = vim.deprecate
  vim.deprecate = function(name, ...)
    local trace = debug.traceback()
    if not plugin_only or trace:find('agent_lsp', 1, true) then
      table.insert(H.deprecated, name .. '\n' .. trace)
    end
    return deprecate(name, ...)
  end
end

return H
