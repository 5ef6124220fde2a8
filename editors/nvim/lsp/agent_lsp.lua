-- The agent-lsp server for Neovim 0.11+'s vim.lsp.config('agent_lsp', {…})
-- and vim.lsp.enable('agent_lsp'): the plugin's capabilities and handlers,
-- under whatever cmd and init_options the user's config gives. Call
-- require('agent_lsp').setup({ autostart = false }) too, for the commands.
local agent = require('agent_lsp')
local config = agent.lsp_config()
config.root_dir = function(bufnr, on_dir)
  if vim.api.nvim_buf_get_name(bufnr) ~= '' and vim.bo[bufnr].buftype == '' then
    on_dir(agent.root(vim.api.nvim_buf_get_name(bufnr)))
  end
end
return config
