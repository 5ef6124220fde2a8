// The session's model and thinking in the status bar: the model of the
// next runs and how full its context was at the latest model call
// (agent.status), and a picker that switches them (agent.setSessionOptions).
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { meterText, SessionStatus as Status } from './args';


const thinkingLevels = ['default', 'minimal', 'low', 'medium', 'high'];

export class SessionOptions {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 8);

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.item.command = 'agent-lsp.sessionOptions';
  }

  register(context: vscode.ExtensionContext): void {
    context.subscriptions.push(this.item, vscode.commands.registerCommand('agent-lsp.sessionOptions', () => this.pick()));
  }

  private async call(command: string, arg?: unknown): Promise<Status | undefined> {
    const c = this.client();
    if (!c?.isRunning()) return undefined;
    return (await c.sendRequest(ExecuteCommandRequest.type, { command, arguments: arg === undefined ? [] : [arg] })) as Status;
  }

  /** refresh shows the status; a failure leaves the item as it was. */
  async refresh(): Promise<void> {
    try {
      const st = await this.call('agent.status');
      if (!st) return;
      this.item.text = meterText(st);
      const used = st.context ? `context ${st.context.used} of ${st.context.size} tokens at the latest model call; ` : '';
      this.item.tooltip = `agent-lsp: ${used}thinking ${st.thinking || 'default'}. Click to switch the model or thinking.`;
      this.item.show();
    } catch {
      // The status bar is a courtesy: the server says its errors elsewhere.
    }
  }

  /** pick asks which option to change and its new value. */
  private async pick(): Promise<void> {
    const st = (await this.call('agent.status')) ?? {};
    const which = await vscode.window.showQuickPick(
      [{ label: 'Model', description: st.model }, { label: 'Thinking', description: st.thinking || 'default' }],
      { placeHolder: 'Switch for the next runs' },
    );
    let arg: { model?: string; thinking?: string } | undefined;
    if (which?.label === 'Model') {
      const model = await vscode.window.showInputBox({ prompt: 'Model for the next runs (empty: as configured)', value: st.model });
      if (model !== undefined) arg = { model };
    } else if (which?.label === 'Thinking') {
      const level = await vscode.window.showQuickPick(thinkingLevels, { placeHolder: 'How hard the model thinks' });
      if (level) arg = { thinking: level };
    }
    if (!arg) return;
    try {
      await this.call('agent.setSessionOptions', arg);
    } catch (err) {
      void vscode.window.showErrorMessage(`agent-lsp: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.refresh();
  }
}
