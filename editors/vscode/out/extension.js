"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || function (mod) {
    if (mod && mod.__esModule) return mod;
    var result = {};
    if (mod != null) for (var k in mod) if (k !== "default" && Object.prototype.hasOwnProperty.call(mod, k)) __createBinding(result, mod, k);
    __setModuleDefault(result, mod);
    return result;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.activate = activate;
exports.deactivate = deactivate;
// The VS Code client of agent-lsp: starts the server, adds the "Agent:"
// palette entries and a status bar item. The refactor preview comes from the
// server's needsConfirmation annotations; all agent logic stays in the server.
const vscode = __importStar(require("vscode"));
const node_1 = require("vscode-languageclient/node");
const args_1 = require("./args");
let client;
let status;
let running = 0;
async function activate(context) {
    const config = () => vscode.workspace.getConfiguration('agent-lsp');
    const serverOptions = { command: config().get('path') || 'agent-lsp', args: ['serve'] };
    const clientOptions = {
        documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
        initializationOptions: (0, args_1.initializationOptions)(config()),
        synchronize: { configurationSection: 'agent-lsp' },
        middleware: {
            // "Ask agent…" code actions come without a prompt: ask for one here.
            executeCommand: async (command, args, next) => {
                if (command === 'agent.ask' && args[0] && !args[0].prompt) {
                    const prompt = await vscode.window.showInputBox({ prompt: 'Ask the agent' });
                    if (!prompt)
                        return undefined;
                    args = [{ ...args[0], prompt }];
                }
                return next(command, args);
            },
        },
    };
    client = new node_1.LanguageClient('agent-lsp', 'agent-lsp', serverOptions, clientOptions);
    status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
    status.command = 'agent-lsp.cancel';
    context.subscriptions.push(status);
    const ask = async (prompt) => {
        if (!prompt)
            return;
        const editor = vscode.window.activeTextEditor;
        const sel = editor?.selection;
        const range = sel && { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
        await run('agent.ask', (0, args_1.askArgs)(prompt, editor?.document.uri.toString(), range));
    };
    context.subscriptions.push(vscode.commands.registerCommand('agent-lsp.ask', async () => ask(await vscode.window.showInputBox({ prompt: 'Ask the agent' }))), vscode.commands.registerCommand('agent-lsp.explain', () => ask('Explain what this code does, and point out anything surprising.')), vscode.commands.registerCommand('agent-lsp.apply', () => run('agent.applyProposal', {})), vscode.commands.registerCommand('agent-lsp.discard', () => run('agent.discardProposal', {})), vscode.commands.registerCommand('agent-lsp.cancel', () => run('agent.cancel', {})), vscode.commands.registerCommand('agent-lsp.newSession', () => run('agent.newSession', undefined)), vscode.commands.registerCommand('agent-lsp.keepNotes', () => run('agent.keepNotes', {})));
    await client.start();
}
async function run(command, arg) {
    if (!client)
        return;
    running++;
    status.text = '$(sync~spin) Agent';
    status.tooltip = 'agent-lsp is working (click to cancel)';
    status.show();
    try {
        const result = await client.sendRequest(node_1.ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] });
        if (command === 'agent.ask' && result) {
            vscode.window.showInformationMessage((0, args_1.summary)(result));
        }
    }
    catch (err) {
        vscode.window.showErrorMessage(`agent-lsp: ${err instanceof Error ? err.message : String(err)}`);
    }
    finally {
        running--;
        if (running === 0)
            status.hide();
    }
}
async function deactivate() {
    await client?.stop();
}
//# sourceMappingURL=extension.js.map