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
;; `agent-lsp-next-edit-mode' shows the server's next edit suggestions
;; (textDocument/copilotInlineEdit) as you edit: TAB jumps to one, TAB
;; again accepts it, C-g dismisses it.
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
(require 'diff-mode) ; the faces next edit suggestions inherit

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
(declare-function lsp-cancel-request-by-token "ext:lsp-mode" (cancel-token))
(declare-function lsp--range-to-region "ext:lsp-mode" (range))
(declare-function lsp--versioned-text-document-identifier "ext:lsp-mode" ())
(defvar lsp--cur-version)
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

;;; Next edit suggestions

(defgroup agent-lsp-next-edit nil
  "The server's next edit suggestions, shown as you edit."
  :group 'agent-lsp
  :prefix "agent-lsp-next-edit-")

(defcustom agent-lsp-next-edit-delay 0.1
  "Seconds after the last change before asking for a next edit.
Short: the server waits its own nes.debounceMs too, and a newer
request for the document cancels the one before."
  :type 'number)

(defface agent-lsp-next-edit-deleted
  '((t :inherit diff-removed :strike-through t))
  "Text a suggested next edit replaces.")

(defface agent-lsp-next-edit-inserted
  '((t :inherit diff-added))
  "Text a suggested next edit inserts.")

(defface agent-lsp-next-edit-hint
  '((t :inherit shadow))
  "The hint at point's line naming where the suggested edit is.")

(defvar agent-lsp-next-edit-active-map
  (let ((map (make-sparse-keymap)))
    ;; Both TAB and <tab>: a mode binding <tab> would otherwise come first.
    (define-key map (kbd "TAB") #'agent-lsp-next-edit-accept)
    (define-key map [tab] #'agent-lsp-next-edit-accept)
    (define-key map (kbd "C-g") #'agent-lsp-next-edit-dismiss)
    ;; Not "ESC": in a terminal it prefixes every M- key.
    (define-key map [escape] #'agent-lsp-next-edit-dismiss)
    map)
  "Keys active only while a next edit suggestion shows.")

(defvar-local agent-lsp--next-edit nil
  "The suggestion shown: a plist of :beg and :end (markers), :text,
:command and :conn.")

(defvar-local agent-lsp--next-edit-overlays nil
  "The overlays showing the suggestion, the hint excluded.")

(defvar-local agent-lsp--next-edit-hint nil
  "The overlay of the hint at point's line, or nil.")

(defvar-local agent-lsp--next-edit-timer nil
  "The timer that asks after the last change.")

(defvar-local agent-lsp--next-edit-ticket 0
  "Counts requests: an answer to any but the newest is dropped.")

(defvar agent-lsp-next-edit-mode) ; defined below, read by the timer

(defvar-local agent-lsp--next-edit-token nil
  "lsp-mode's cancel token of this buffer's next-edit request.")

;; Before every minor mode (a completion UI's TAB included), but only in a
;; buffer while `agent-lsp--next-edit' is set.
(defvar agent-lsp--next-edit-map-alist
  `((agent-lsp--next-edit . ,agent-lsp-next-edit-active-map)))
(add-to-list 'emulation-mode-map-alists 'agent-lsp--next-edit-map-alist)

(defun agent-lsp--document (conn)
  "The current buffer as CONN's client last sent it: (:uri U :version V)."
  (if (agent-lsp--eglot-p conn)
      (eglot--VersionedTextDocumentIdentifier)
    (lsp--versioned-text-document-identifier)))

(defun agent-lsp--version (conn)
  "The current buffer's document version in CONN's client."
  (if (agent-lsp--eglot-p conn) eglot--versioned-identifier lsp--cur-version))

(defun agent-lsp--region (conn range)
  "RANGE (an LSP range, in CONN's position encoding) as (BEG . END)."
  (if (agent-lsp--eglot-p conn)
      (eglot--range-region range)
    (lsp--range-to-region range)))

(defun agent-lsp--next-edit-clear ()
  "Remove the shown suggestion, if any."
  (mapc #'delete-overlay agent-lsp--next-edit-overlays)
  (when agent-lsp--next-edit-hint
    (delete-overlay agent-lsp--next-edit-hint))
  (setq agent-lsp--next-edit-overlays nil
        agent-lsp--next-edit-hint nil
        agent-lsp--next-edit nil))

(defun agent-lsp--next-edit-lines ()
  "The first and last line of the shown suggestion's range, as a cons."
  (cons (line-number-at-pos (plist-get agent-lsp--next-edit :beg))
        (line-number-at-pos (plist-get agent-lsp--next-edit :end))))

(defun agent-lsp--next-edit-away-p ()
  "Non-nil when point is on none of the suggestion's lines."
  (let ((lines (agent-lsp--next-edit-lines))
        (here (line-number-at-pos)))
    (or (< here (car lines)) (> here (cdr lines)))))

(defun agent-lsp--next-edit-place-hint ()
  "Show the hint at the end of point's line while point is away from the edit."
  (when agent-lsp--next-edit-hint
    (delete-overlay agent-lsp--next-edit-hint)
    (setq agent-lsp--next-edit-hint nil))
  (when (and agent-lsp--next-edit (agent-lsp--next-edit-away-p))
    (let ((ov (make-overlay (line-end-position) (line-end-position)))
          (text (propertize (format "  next edit at line %d · TAB"
                                    (car (agent-lsp--next-edit-lines)))
                            'face 'agent-lsp-next-edit-hint)))
      ;; The cursor stays before the hint, at the line's real end.
      (put-text-property 0 1 'cursor t text)
      (overlay-put ov 'after-string text)
      (overlay-put ov 'agent-lsp-next-edit 'hint)
      (setq agent-lsp--next-edit-hint ov))))

(defun agent-lsp--next-edit-show (conn result version)
  "Show the edit of RESULT, a copilotInlineEdit answer for VERSION, from CONN.
Nothing shows when the buffer moved on from VERSION meanwhile."
  (agent-lsp--next-edit-clear)
  (let* ((edits (agent-lsp--get result :edits))
         (edit (and (> (length edits) 0) (elt edits 0))))
    (when (and edit
               (eql version (agent-lsp--version conn))
               (eql version (agent-lsp--get (agent-lsp--get edit :textDocument) :version)))
      (let* ((region (agent-lsp--region conn (agent-lsp--get edit :range)))
             (text (or (agent-lsp--get edit :text) ""))
             (ov (make-overlay (car region) (cdr region))))
        (overlay-put ov 'agent-lsp-next-edit 'edit)
        (overlay-put ov 'priority 100)
        (when (< (car region) (cdr region))
          (overlay-put ov 'face 'agent-lsp-next-edit-deleted))
        ;; After the struck-out text, so old and new read in order; a
        ;; multi-line text shows as the lines it makes.
        (unless (string-empty-p text)
          (overlay-put ov 'after-string (propertize text 'face 'agent-lsp-next-edit-inserted)))
        (setq agent-lsp--next-edit-overlays (list ov)
              agent-lsp--next-edit (list :beg (copy-marker (car region))
                                         :end (copy-marker (cdr region) t)
                                         :text text
                                         :command (agent-lsp--get edit :command)
                                         :conn conn))
        (agent-lsp--next-edit-place-hint)
        t))))

(defun agent-lsp--next-edit-request (conn &optional verbose)
  "Ask CONN for the next edit at point; show it when it comes.
With VERBOSE, say so when there is none."
  (agent-lsp--flush-changes conn)
  (let* ((buf (current-buffer))
         (doc (agent-lsp--document conn))
         (version (agent-lsp--get doc :version))
         (ticket (cl-incf agent-lsp--next-edit-ticket))
         (params (list :textDocument doc :position (agent-lsp--position conn (point))))
         (done (lambda (result)
                 (when (buffer-live-p buf)
                   (with-current-buffer buf
                     (when (and (eql ticket agent-lsp--next-edit-ticket)
                                (not (agent-lsp--next-edit-show conn result version))
                                verbose)
                       (message "agent-lsp: no next edit"))))))
         (failed (lambda (err)
                   ;; -32800: superseded or cancelled, nothing to say.
                   (unless (eql (agent-lsp--get err :code) -32800)
                     (message "agent-lsp: next edit failed: %s"
                              (or (agent-lsp--get err :message) err))))))
    (if (agent-lsp--eglot-p conn)
        ;; jsonrpc gives no id to cancel with: the server cancels a request
        ;; when a newer one for the document comes, and the ticket drops
        ;; the older answer.
        (jsonrpc-async-request conn :textDocument/copilotInlineEdit params
                               :success-fn done :error-fn failed
                               :timeout-fn #'ignore)
      (unless agent-lsp--next-edit-token
        (setq agent-lsp--next-edit-token (make-symbol "agent-lsp-next-edit")))
      (lsp-cancel-request-by-token agent-lsp--next-edit-token)
      (let ((lsp--cur-workspace conn))
        (lsp-request-async "textDocument/copilotInlineEdit" params done
                           :mode 'alive :error-handler failed
                           :cancel-token agent-lsp--next-edit-token)))))

(defun agent-lsp--next-edit-fire (buf)
  "Ask for the next edit in BUF, where the mode still runs and agent-lsp serves."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (setq agent-lsp--next-edit-timer nil)
      (when-let ((conn (and agent-lsp-next-edit-mode (agent-lsp--buffer-connection))))
        (agent-lsp--next-edit-request conn)))))

(defun agent-lsp--next-edit-after-change (&rest _)
  "Drop the shown suggestion (its place moved) and ask again shortly."
  (agent-lsp--next-edit-clear)
  (when (timerp agent-lsp--next-edit-timer)
    (cancel-timer agent-lsp--next-edit-timer))
  ;; Not an idle timer: typing without pause still asks, the server
  ;; debounces, and it fires in batch Emacs too.
  (setq agent-lsp--next-edit-timer
        (run-at-time agent-lsp-next-edit-delay nil #'agent-lsp--next-edit-fire (current-buffer))))

(defun agent-lsp--next-edit-post-command ()
  "Keep the hint on point's line as point moves."
  (when agent-lsp--next-edit
    (agent-lsp--next-edit-place-hint)))

(defun agent-lsp--next-edit-status (conn)
  "Tell the user when CONN's server has no next-edit model."
  (agent-lsp--execute conn "agent.status" nil
                      (lambda (status)
                        (when (string-empty-p (or (agent-lsp--get (agent-lsp--get status :nextEdits) :model) ""))
                          (message "agent-lsp: next edit suggestions are off: name a model under [nes] (see README.md)")))))

;;;###autoload
(define-minor-mode agent-lsp-next-edit-mode
  "Show agent-lsp's next edit suggestions as you edit.
Shortly after a change, the server is asked for the edit that comes
next, near point or a few lines away; it shows as the replaced text
struck out with the new text after it.  While it shows, TAB moves
to it, TAB there accepts it, and C-g dismisses it; editing drops it.
The server must have a next-edit model (its nes settings)."
  :lighter " Next"
  (agent-lsp--next-edit-clear)
  (when (timerp agent-lsp--next-edit-timer)
    (cancel-timer agent-lsp--next-edit-timer)
    (setq agent-lsp--next-edit-timer nil))
  (cond (agent-lsp-next-edit-mode
         (add-hook 'after-change-functions #'agent-lsp--next-edit-after-change nil t)
         (add-hook 'post-command-hook #'agent-lsp--next-edit-post-command nil t)
         (when-let ((conn (agent-lsp--buffer-connection)))
           (agent-lsp--next-edit-status conn)))
        (t (remove-hook 'after-change-functions #'agent-lsp--next-edit-after-change t)
           (remove-hook 'post-command-hook #'agent-lsp--next-edit-post-command t))))

;;;###autoload
(defun agent-lsp-next-edit ()
  "Ask for the next edit at point now."
  (interactive)
  (let ((conn (or (agent-lsp--buffer-connection)
                  (user-error "agent-lsp: no agent-lsp server for this buffer"))))
    (agent-lsp--next-edit-request conn t)))

(defun agent-lsp-next-edit-accept ()
  "Move to the suggested edit, or accept it when point is on its lines.
Accepting applies it to the buffer, then runs its command, which tells
the server so: the next suggestion builds on it."
  (interactive)
  (let ((edit agent-lsp--next-edit))
    (unless edit
      (user-error "agent-lsp: no next edit shows here"))
    (if (agent-lsp--next-edit-away-p)
        (progn (goto-char (plist-get edit :beg))
               (agent-lsp--next-edit-place-hint))
      (let ((beg (marker-position (plist-get edit :beg)))
            (end (marker-position (plist-get edit :end)))
            (conn (plist-get edit :conn))
            (command (plist-get edit :command)))
        (agent-lsp--next-edit-clear)
        ;; One change, the suggestion itself (not a deletion then an
        ;; insertion): the server knows its suggestion taken from it.
        (goto-char beg)
        (save-match-data
          (looking-at (regexp-quote (buffer-substring-no-properties beg end)))
          (replace-match (plist-get edit :text) t t))
        ;; The command must reach the server after the edit's didChange.
        (agent-lsp--flush-changes conn)
        (when command
          (let ((args (agent-lsp--get command :arguments)))
            (agent-lsp--execute conn (agent-lsp--get command :command)
                                (and (> (length args) 0) (elt args 0))
                                #'ignore)))))))

(defun agent-lsp-next-edit-dismiss ()
  "Dismiss the suggested edit."
  (interactive)
  (agent-lsp--next-edit-clear))

;;; eglot: code actions and capabilities

(defconst agent-lsp--experimental '(:promptInput t)
  "What this package tells the server under experimental.agentLsp.
promptInput: the client reads agent.ask's prompt itself, so the
\"Ask agent…\" code actions carry the command instead of inserting an
AGENT: comment template.  eglot does not say userSettings: its
`eglot-workspace-configuration' is a safe file-local variable, so a
repository's .dir-locals.el fills its pushes without asking.  Nor
showsInlineEdits: `agent-lsp-next-edit-mode' is the user's choice, and
the server stops suggesting as code actions once the mode first asks.")

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
                      ;; lsp-mode 8 counts columns in code points and
                      ;; does not say so: ask for UTF-32, which is that.
                      :custom-capabilities `((general (positionEncodings . ["utf-32"]))
                                             (experimental (agentLsp ,@agent-lsp--lsp-mode-experimental)))
                      :action-handlers handlers))))

(provide 'agent-lsp)
;;; agent-lsp.el ends here
