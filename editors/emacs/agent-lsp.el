;;; agent-lsp.el --- Ask agent-lsp's coding agent through eglot or lsp-mode  -*- lexical-binding: t; -*-

;; Author: the agent-lsp authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages, convenience
;; URL: https://github.com/agent-lsp/agent-lsp

;; This file is not part of GNU Emacs.

;;; Commentary:

;; agent-lsp is a language server that runs a coding agent.  This package
;; gives it commands in Emacs; all agent logic stays in the server, which
;; this file only asks, shows and answers:
;;
;;   M-x agent-lsp-ask      ask about the region (or the cursor's file)
;;   M-x agent-lsp-show     show the pending proposal as a diff
;;   M-x agent-lsp-apply    apply it to the buffers (nothing is saved)
;;   M-x agent-lsp-discard  drop it
;;   M-x agent-lsp-cancel   stop the running run and the commands it started
;;   M-x agent-lsp-eglot    start agent-lsp with eglot for this buffer's mode
;;
;; Each command sends `workspace/executeCommand' (agent.ask,
;; agent.showProposal, agent.applyProposal, agent.discardProposal,
;; agent.cancel) to the agent-lsp server of the current buffer: its eglot
;; server when that is agent-lsp, or lsp-mode's `agent-lsp' add-on client
;; (`agent-lsp-register-lsp-mode-client').  The server sees the buffer as
;; Emacs has it, unsaved changes included.  A proposal changes nothing until
;; `agent-lsp-apply': the server then sends `workspace/applyEdit' and the
;; client edits the buffers (eglot asks first when
;; `eglot-confirm-server-initiated-edits' says so).
;;
;; The server's code actions that name these commands ("Ask agent…",
;; "Apply agent proposal", …) run through the same functions, so the
;; code-action menu reads prompts and shows answers and diffs as well.
;;
;; See README.md beside this file for the set-up.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'jsonrpc)

;; lsp-mode is optional: used only when a buffer runs it, never loaded here.
(defvar lsp-mode)
(defvar lsp--cur-workspace)
(declare-function lsp-workspaces "ext:lsp-mode" ())
(declare-function lsp--workspace-client "ext:lsp-mode" (workspace) t)
(declare-function lsp--client-server-id "ext:lsp-mode" (client) t)
(declare-function lsp--workspace-proc "ext:lsp-mode" (workspace) t)
(declare-function lsp--workspace-status "ext:lsp-mode" (workspace) t)
(declare-function lsp--workspace-root "ext:lsp-mode" (workspace) t)
(declare-function lsp--point-to-position "ext:lsp-mode" (point))
(declare-function lsp-request-async "ext:lsp-mode" (method params callback &rest args))
(declare-function lsp-register-client "ext:lsp-mode" (client))
(declare-function lsp-stdio-connection "ext:lsp-mode" (command &optional test-command))
(declare-function make-lsp-client "ext:lsp-mode" (&rest args))

(defgroup agent-lsp nil
  "Ask agent-lsp's coding agent from eglot or lsp-mode."
  :group 'tools
  :prefix "agent-lsp-")

(defcustom agent-lsp-program '("agent-lsp" "serve")
  "The command that starts the server: the program and its arguments."
  :type '(repeat string))

(defcustom agent-lsp-settings nil
  "Settings for the server, a plist such as (:model \"gpt-4o-mini\").
lsp-mode's add-on client sends them as initializationOptions, which
the server takes whole: they are yours.  eglot does not read them:
give it :initializationOptions in `eglot-server-programs', of which
the server takes only what a project file may set, or use agent-lsp's
config.toml (see README.md).  API keys never go here: the server reads
them from its environment."
  :type 'plist)

(defcustom agent-lsp-lsp-mode-activation #'agent-lsp-lsp-mode-activate-p
  "Function of (FILE-NAME MAJOR-MODE) deciding where lsp-mode adds agent-lsp."
  :type 'function)

(defvar agent-lsp-run-finished-functions nil
  "Functions called with the result of a finished `agent-lsp-ask'.
The result is the server's agent.ask answer, a plist (eglot) or a
hash table (lsp-mode): runId, proposalId, state, answer, diff.")

(defvar agent-lsp--connection nil
  "The connection the last command used: an eglot server or an lsp-mode workspace.
Commands run outside a file buffer (from the answer or the diff) use it.")

(defvar agent-lsp--proposal nil
  "Id of the proposal shown and not yet applied or discarded, or nil.")

;;; Finding the server

(defun agent-lsp--offers-agent-p (commands)
  "Non-nil when COMMANDS (an executeCommandProvider list) hold agent.ask."
  (and (member "agent.ask" (append commands nil)) t))

(defun agent-lsp--agent-server-p (server)
  "Non-nil when the eglot SERVER is agent-lsp (or a multiplexer holding it)."
  (and (jsonrpc-running-p server)
       (agent-lsp--offers-agent-p
        (plist-get (plist-get (eglot--capabilities server) :executeCommandProvider)
                   :commands))))

(defun agent-lsp--eglot-server ()
  "The current buffer's eglot server when it is agent-lsp."
  (when-let ((server (eglot-current-server)))
    (and (agent-lsp--agent-server-p server) server)))

(defun agent-lsp--lsp-workspace ()
  "The current buffer's initialized lsp-mode workspace of the agent-lsp client."
  (when (and (bound-and-true-p lsp-mode) (fboundp 'lsp-workspaces))
    (cl-find-if (lambda (ws)
                  (and (eq (lsp--client-server-id (lsp--workspace-client ws)) 'agent-lsp)
                       (eq (lsp--workspace-status ws) 'initialized)))
                (lsp-workspaces))))

(defun agent-lsp--eglot-p (conn)
  "Non-nil when CONN is an eglot server (else an lsp-mode workspace)."
  (cl-typep conn 'jsonrpc-connection))

(defun agent-lsp--live-p (conn)
  "Non-nil when CONN still talks to a running server."
  (and conn
       (if (agent-lsp--eglot-p conn)
           (jsonrpc-running-p conn)
         (process-live-p (lsp--workspace-proc conn)))))

(defun agent-lsp--buffer-connection ()
  "The agent-lsp connection of the current buffer, or nil."
  (or (agent-lsp--lsp-workspace) (agent-lsp--eglot-server)))

(defun agent-lsp--connection ()
  "The connection to use: the current buffer's, else the last one used."
  (let ((conn (or (agent-lsp--buffer-connection)
                  (and (agent-lsp--live-p agent-lsp--connection) agent-lsp--connection))))
    (unless conn
      (user-error "agent-lsp: no agent-lsp server here; M-x agent-lsp-eglot starts one (see README.md)"))
    (setq agent-lsp--connection conn)))

;;; Talking to it

(defun agent-lsp--get (obj key)
  "KEY (a keyword) of OBJ, a plist (eglot) or hash table (lsp-mode).
JSON false reads as nil."
  (let ((v (if (hash-table-p obj)
               (gethash (substring (symbol-name key) 1) obj)
             (plist-get obj key))))
    (unless (eq v :json-false) v)))

(defun agent-lsp--put (obj key value)
  "A copy of OBJ, a plist or hash table (or nil), with KEY set to VALUE."
  (if (hash-table-p obj)
      (let ((copy (copy-hash-table obj)))
        (puthash (substring (symbol-name key) 1) value copy)
        copy)
    (plist-put (copy-sequence obj) key value)))

(defun agent-lsp--error-handler (command)
  "An error handler reporting COMMAND's failure in the echo area."
  (lambda (err)
    (message "agent-lsp: %s failed: %s" command
             (or (agent-lsp--get err :message) err))))

(defun agent-lsp--execute (conn command arg on-result)
  "Send COMMAND with ARG (a plist or hash table, or nil for none) through CONN.
Return at once; ON-RESULT is called with the result when it comes.
No timeout: a run lasts as long as it needs (`agent-lsp-cancel')."
  (let ((params (list :command command :arguments (if arg (vector arg) [])))
        (on-error (agent-lsp--error-handler command)))
    (if (agent-lsp--eglot-p conn)
        (jsonrpc-async-request conn :workspace/executeCommand params
                               :success-fn on-result
                               :error-fn on-error
                               :timeout nil)
      (let ((lsp--cur-workspace conn))
        (lsp-request-async "workspace/executeCommand" params on-result
                           :mode 'detached :error-handler on-error)))))

(defun agent-lsp--flush-changes (conn)
  "Make sure CONN's server has the current buffer's latest text."
  ;; eglot sends changes after an idle delay; lsp-mode sends them at once.
  (when (and (agent-lsp--eglot-p conn) (fboundp 'eglot--signal-textDocument/didChange))
    (eglot--signal-textDocument/didChange)))

(defun agent-lsp--position (conn pos)
  "POS as an LSP position in CONN's encoding."
  (if (agent-lsp--eglot-p conn)
      (eglot--pos-to-lsp-position pos)
    (lsp--point-to-position pos)))

;;; Showing results

(defun agent-lsp--show (name text mode)
  "Show TEXT in buffer NAME with major MODE, read-only, without selecting it."
  (let ((buf (get-buffer-create name)))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (or text ""))
        (goto-char (point-min))
        (funcall mode)
        (setq buffer-read-only t)))
    (display-buffer buf)
    buf))

(defun agent-lsp--proposal-buffer-name (id)
  "The name of the diff buffer of proposal ID."
  (format "*agent-lsp %s.diff*" id))

(defun agent-lsp--show-diff (id diff)
  "Show proposal ID's unified DIFF and remember ID as the pending proposal."
  (setq agent-lsp--proposal id)
  (agent-lsp--show (agent-lsp--proposal-buffer-name id) diff #'diff-mode))

(defun agent-lsp--close-diff (id)
  "Kill proposal ID's diff buffer and forget it as pending."
  (when (equal id agent-lsp--proposal)
    (setq agent-lsp--proposal nil))
  (when-let ((buf (get-buffer (agent-lsp--proposal-buffer-name id))))
    (kill-buffer buf)))

(defun agent-lsp--answer-mode ()
  "Markdown where it is installed, else text."
  (if (fboundp 'markdown-mode) (markdown-mode) (text-mode)))

(defun agent-lsp--ask-done (result)
  "Show an agent.ask RESULT: the answer, and the proposal's diff if any."
  (let ((state (agent-lsp--get result :state))
        (answer (agent-lsp--get result :answer))
        (diff (agent-lsp--get result :diff))
        (id (agent-lsp--get result :proposalId)))
    (agent-lsp--show "*agent-lsp answer*" answer #'agent-lsp--answer-mode)
    (cond ((not (equal state "completed"))
           (message "agent-lsp: %s %s" (agent-lsp--get result :runId) state))
          ((and diff (not (string-empty-p diff)))
           (agent-lsp--show-diff id diff)
           (message "agent-lsp: %s ready: M-x agent-lsp-apply applies it to the buffers, M-x agent-lsp-discard drops it" id))
          (t (message "agent-lsp: done, no changes proposed")))
    (run-hook-with-args 'agent-lsp-run-finished-functions result)))

(defun agent-lsp--root (conn)
  "The workspace root of CONN's server."
  (if (agent-lsp--eglot-p conn)
      (project-root (eglot--project conn))
    (lsp--workspace-root conn)))

(defun agent-lsp--open-new-files (conn offered)
  "Open the new files in OFFERED in buffers visiting their paths, unsaved.
OFFERED is agent.applyProposal's list of files the client could not
create: each has the path the agent meant (relative to CONN's root)
and a document holding its content.  A path that exists meanwhile is
left alone and its document shown instead.  Return the paths opened."
  (let ((root (agent-lsp--root conn)) opened)
    (dolist (file (append offered nil))
      (let ((path (expand-file-name (agent-lsp--get file :path) root))
            (doc (eglot--uri-to-path (agent-lsp--get file :document))))
        (cond ((or (file-exists-p path) (get-file-buffer path))
               (display-buffer (find-file-noselect doc)))
              (t (with-current-buffer (find-file-noselect path)
                   (insert-file-contents doc)
                   ;; Read-only when its directory is missing; saving
                   ;; offers to create it.
                   (setq buffer-read-only nil)
                   (display-buffer (current-buffer)))
                 (push (agent-lsp--get file :path) opened)))))
    (nreverse opened)))

(defun agent-lsp--id-arg ()
  "The argument naming the pending proposal; nil means the server's newest."
  (and agent-lsp--proposal (list :id agent-lsp--proposal)))

;;; The server's commands, run here

(defun agent-lsp--ask (conn arg)
  "Run agent.ask through CONN with ARG, reading the prompt when ARG has none.
ARG holds the server's arguments (prompt, uri, range, strategy, …), from
`agent-lsp-ask' or a code action such as \"Ask agent…\"."
  (let ((prompt (agent-lsp--get arg :prompt)))
    (when (or (null prompt) (string-empty-p (string-trim prompt)))
      (setq prompt (read-string "Ask agent: "))
      (when (string-empty-p (string-trim prompt))
        (user-error "agent-lsp: the prompt is empty"))
      (setq arg (agent-lsp--put arg :prompt prompt)))
    (agent-lsp--execute conn "agent.ask" (agent-lsp--put arg :wait t) #'agent-lsp--ask-done)
    (message "agent-lsp: asking… (M-x agent-lsp-cancel stops it)")))

(defun agent-lsp--show-proposal (conn arg)
  "Run agent.showProposal through CONN with ARG and show the diff."
  (agent-lsp--execute conn "agent.showProposal" arg
                      (lambda (result)
                        (agent-lsp--show-diff (agent-lsp--get result :id)
                                              (agent-lsp--get result :diff)))))

(defun agent-lsp--apply (conn arg)
  "Run agent.applyProposal through CONN with ARG; open the new files it hands back."
  (agent-lsp--execute
   conn "agent.applyProposal" arg
   (lambda (result)
     (let ((id (agent-lsp--get result :id))
           (new (agent-lsp--open-new-files conn (agent-lsp--get result :offered))))
       (cond ((not (agent-lsp--get result :applied))
              (message "agent-lsp: %s not applied: %s" id
                       (or (agent-lsp--get result :reason) "refused")))
             (t (agent-lsp--close-diff id)
                (message "agent-lsp: %s applied to the buffers (nothing saved)%s" id
                         (if new
                             (format "; new files in unsaved buffers: %s" (string-join new ", "))
                           ""))))))))

(defun agent-lsp--discard (conn arg)
  "Run agent.discardProposal through CONN with ARG."
  (agent-lsp--execute conn "agent.discardProposal" arg
                      (lambda (result)
                        (let ((id (agent-lsp--get result :id)))
                          (agent-lsp--close-diff id)
                          (message "agent-lsp: %s discarded" id)))))

(defun agent-lsp--cancel (conn arg)
  "Run agent.cancel through CONN with ARG."
  (agent-lsp--execute conn "agent.cancel" arg
                      (lambda (result)
                        (let ((ids (append (agent-lsp--get result :cancelled) nil)))
                          (message "agent-lsp: %s" (if ids (concat "cancelled " (string-join ids ", "))
                                                     "nothing was running"))))))

(defconst agent-lsp--commands
  '(("agent.ask" . agent-lsp--ask)
    ("agent.showProposal" . agent-lsp--show-proposal)
    ("agent.applyProposal" . agent-lsp--apply)
    ("agent.discardProposal" . agent-lsp--discard)
    ("agent.cancel" . agent-lsp--cancel))
  "The server's commands this package runs itself, by name.
Code actions naming them come here too: the prompt is read when an
action has none, runs end with the answer and diff buffers, and
applies open the new files.")

(defun agent-lsp--run-command (conn command arguments)
  "Run COMMAND with ARGUMENTS (a code action's) through CONN if it is ours.
Return nil when COMMAND is not one of `agent-lsp--commands'."
  (when-let ((handler (cdr (assoc command agent-lsp--commands))))
    (setq agent-lsp--connection conn)
    (funcall handler conn (and (> (length arguments) 0) (elt arguments 0)))
    t))

;;; Commands

;;;###autoload
(defun agent-lsp-ask (prompt &optional beg end)
  "Ask the agent PROMPT about the current buffer, the region BEG..END if given.
Interactively, read PROMPT and use the active region.  The agent sees
the buffer as it is now, unsaved changes included.  The request lasts
as long as the run; the answer and the proposed diff open when it
ends, and nothing changes before `agent-lsp-apply'."
  (interactive
   (list (read-string "Ask agent: ")
         (and (use-region-p) (region-beginning))
         (and (use-region-p) (region-end))))
  (when (string-empty-p (string-trim prompt))
    (user-error "agent-lsp: the prompt is empty"))
  (let ((conn (agent-lsp--connection))
        (arg (list :prompt prompt)))
    (when buffer-file-name
      (agent-lsp--flush-changes conn)
      (setq arg (append arg (list :uri (eglot--path-to-uri buffer-file-name)
                                  :range (list :start (agent-lsp--position conn (or beg (point)))
                                               :end (agent-lsp--position conn (or end (point))))))))
    (agent-lsp--ask conn arg)))

;;;###autoload
(defun agent-lsp-show ()
  "Show the pending proposal (the server's newest if none is shown) as a diff."
  (interactive)
  (agent-lsp--show-proposal (agent-lsp--connection) (agent-lsp--id-arg)))

;;;###autoload
(defun agent-lsp-apply ()
  "Apply the pending proposal to the buffers; nothing is saved.
The server sends it as `workspace/applyEdit'.  It is refused, with the
line, when you edited the same lines since the agent read them.  New
files the client cannot create through an edit (eglot) open in
buffers visiting their paths: saving one creates it."
  (interactive)
  (agent-lsp--apply (agent-lsp--connection) (agent-lsp--id-arg)))

;;;###autoload
(defun agent-lsp-discard ()
  "Discard the pending proposal."
  (interactive)
  (agent-lsp--discard (agent-lsp--connection) (agent-lsp--id-arg)))

;;;###autoload
(defun agent-lsp-cancel ()
  "Cancel the running runs and the commands they started."
  (interactive)
  (agent-lsp--cancel (agent-lsp--connection) nil))

;;;###autoload
(defun agent-lsp-eglot ()
  "Start agent-lsp with eglot for this buffer's major mode in this project.
Eglot runs one server per major mode and project: if another one runs
there, it is shut down (after asking) until you start it again with
\\[eglot]."
  (interactive)
  (unless buffer-file-name
    (user-error "agent-lsp: not a file buffer"))
  (let ((current (eglot-current-server)))
    (when (agent-lsp--eglot-server)
      (user-error "agent-lsp: already running here"))
    (when (and current (jsonrpc-running-p current)
               (not (y-or-n-p (format "Replace %s with agent-lsp for %s in this project? "
                                      (jsonrpc-name current) major-mode))))
      (user-error "agent-lsp: not started"))
    ;; eglot's own guess gives `eglot' its arguments in the shape of the
    ;; installed version.
    (let ((eglot-server-programs `(((,major-mode) . ,agent-lsp-program))))
      (apply #'eglot (eglot--guess-contact)))))

;;; eglot: code actions and capabilities

(defconst agent-lsp--experimental '(:promptInput t)
  "What this package tells the server under experimental.agentLsp.
promptInput: the client reads agent.ask's prompt itself, so the
\"Ask agent…\" code actions carry the command instead of inserting an
AGENT: comment template.  eglot does not say userSettings: its
`eglot-workspace-configuration' is a safe file-local variable, so a
repository's .dir-locals.el fills its pushes without asking.")

(defconst agent-lsp--lsp-mode-experimental
  (append agent-lsp--experimental '(:userSettings t))
  "What the lsp-mode client tells the server under experimental.agentLsp.
userSettings: its settings are the user's own, so the server takes them
whole.  They are `agent-lsp-settings' (not a safe file-local variable,
so a .dir-locals.el setting it makes Emacs ask), and lsp-mode pushes
nothing to this client: it names no section to synchronize.")

(cl-defmethod eglot-execute-command :around ((server eglot-lsp-server) command arguments)
  "Run agent-lsp's COMMAND with ARGUMENTS here when SERVER is agent-lsp.
eglot calls this for the command of a code action it runs."
  (unless (and (agent-lsp--agent-server-p server)
               (agent-lsp--run-command server (format "%s" command) arguments))
    (cl-call-next-method)))

;; eglot 1.16 and later (Emacs 30) run code actions through `eglot-execute'
;; instead, with a Command or ExecuteCommandParams (a CodeAction recurses
;; into its Command).
(when (fboundp 'eglot-execute)
  (cl-defmethod eglot-execute :around ((server eglot-lsp-server) action)
    "Run agent-lsp's command in ACTION here when SERVER is agent-lsp."
    (let ((command (plist-get action :command)))
      (unless (and (stringp command)
                   (agent-lsp--agent-server-p server)
                   (agent-lsp--run-command server command (plist-get action :arguments)))
        (cl-call-next-method)))))

(cl-defmethod eglot-client-capabilities :around ((_server eglot-lsp-server))
  "Add experimental.agentLsp to eglot's capabilities.
Other servers ignore the key; agent-lsp reads promptInput there."
  (let* ((caps (cl-call-next-method))
         (experimental (plist-get caps :experimental)))
    (if (or (null experimental)
            (and (hash-table-p experimental) (hash-table-empty-p experimental)))
        (plist-put caps :experimental (list :agentLsp agent-lsp--experimental))
      caps)))

;;; lsp-mode

(defun agent-lsp-lsp-mode-activate-p (file-name _mode)
  "Non-nil for buffers visiting a file: agent-lsp reads any language."
  (and file-name t))

;;;###autoload
(defun agent-lsp-register-lsp-mode-client ()
  "Register agent-lsp with lsp-mode as an add-on client.
It then starts beside each buffer's language server, and the commands
of this package go to it.  Call it after lsp-mode is loaded."
  (let ((handlers (make-hash-table :test #'equal)))
    (dolist (command agent-lsp--commands)
      (puthash (car command)
               (lambda (action)
                 (agent-lsp--run-command (agent-lsp--connection) (car command)
                                         (agent-lsp--get action :arguments)))
               handlers))
    (lsp-register-client
     (make-lsp-client :new-connection (lsp-stdio-connection (lambda () agent-lsp-program))
                      :activation-fn (lambda (file mode)
                                       (funcall agent-lsp-lsp-mode-activation file mode))
                      :add-on? t
                      :priority -2
                      :server-id 'agent-lsp
                      :initialization-options (lambda () (or agent-lsp-settings (make-hash-table)))
                      :custom-capabilities `((experimental (agentLsp ,@agent-lsp--lsp-mode-experimental)))
                      :action-handlers handlers))))

(provide 'agent-lsp)
;;; agent-lsp.el ends here
