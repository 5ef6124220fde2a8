;;; e2e.el --- headless end-to-end run of agent-lsp.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by e2e_test.go with stdin holding the prompt and the answer to eglot's
;; confirmation.  Starts $CLIENT (eglot through M-x eglot, or lsp-mode) on
;; $WORKSPACE/hello.py with the server $AGENT_LSP_BIN, edits the buffer
;; without saving, asks (the prompt read from the minibuffer by
;; `agent-lsp-ask' or, with $FLOW code-actions, by the "Ask agent…" code
;; action), waits for the run, shows the proposal again (`agent-lsp-show'),
;; applies it (`agent-lsp-apply' or the "Apply agent proposal" code action)
;; and cancels (nothing runs by then).  It writes what it saw into $OUT:
;; commands (the server's, with eglot), diff, before, buffer, modified, new
;; (the new file's buffer), then result ("ok" or the error).  The Go test
;; judges.

;;; Code:

(require 'agent-lsp)
(require 'seq)

(defvar e2e-out (getenv "OUT"))

(defun e2e-write (name text)
  "Write TEXT to the file NAME in $OUT."
  (let ((coding-system-for-write 'utf-8-unix))
    (write-region text nil (expand-file-name name e2e-out) nil 'silent)))

(defun e2e-wait (what pred)
  "Process events until PRED holds; fail naming WHAT after 20 seconds."
  (let ((deadline (+ (float-time) 20)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))

(defun e2e-start-eglot (file)
  "Visit FILE and start agent-lsp for it with M-x eglot."
  (setq eglot-server-programs
        `((python-mode . (,(getenv "AGENT_LSP_BIN") "serve"))))
  (setq-default eglot-workspace-configuration '(:agent-lsp (:model "gpt-emacs")))
  (find-file file)
  (call-interactively #'eglot))

(defvar lsp-auto-guess-root)
(defvar lsp-enabled-clients)
(defvar lsp-enable-file-watchers)
(declare-function lsp "ext:lsp-mode" (&optional arg))

(defun e2e-start-lsp-mode (file)
  "Visit FILE and start lsp-mode with agent-lsp as its only (add-on) client."
  (require 'lsp-mode)
  (setq lsp-auto-guess-root t
        lsp-enabled-clients '(agent-lsp)
        lsp-enable-file-watchers nil
        agent-lsp-program (list (getenv "AGENT_LSP_BIN") "serve")
        agent-lsp-settings '(:model "gpt-emacs"))
  (agent-lsp-register-lsp-mode-client)
  (find-file file)
  (lsp))

(declare-function lsp-execute-code-action "ext:lsp-mode" (action))

(defun e2e-code-action (title-regexp)
  "Pick the code action at point whose title matches TITLE-REGEXP from the menu."
  (let ((completing-read-function
         (lambda (_prompt collection &rest _)
           (let ((titles (all-completions "" collection)))
             (or (seq-find (lambda (title) (string-match-p title-regexp title)) titles)
                 (error "No code action %s among %S" title-regexp titles)))))
        ;; A keyboard event: eglot pops up a mouse menu after a click.
        (last-nonmenu-event ?\r))
    (call-interactively (if (agent-lsp--eglot-server) #'eglot-code-actions #'lsp-execute-code-action))))

(defun e2e-ask ()
  "Ask as $FLOW says: M-x agent-lsp-ask, or the code action \"Ask agent…\"."
  (if (equal (getenv "FLOW") "code-actions")
      (e2e-code-action "\\`Ask agent…\\'")
    (call-interactively #'agent-lsp-ask)))

(defun e2e-apply ()
  "Apply as $FLOW says: M-x agent-lsp-apply, or the code action."
  (if (equal (getenv "FLOW") "code-actions")
      (e2e-code-action "^Apply agent proposal")
    (agent-lsp-apply)))

(condition-case err
    (let (finished)
      (funcall (if (equal (getenv "CLIENT") "lsp-mode") #'e2e-start-lsp-mode #'e2e-start-eglot)
               (expand-file-name "hello.py" (getenv "WORKSPACE")))
      (e2e-wait "the client to attach agent-lsp to the buffer" #'agent-lsp--buffer-connection)
      (when-let ((server (agent-lsp--eglot-server)))
        (e2e-write "commands" (mapconcat #'identity
                                         (plist-get (plist-get (eglot--capabilities server)
                                                               :executeCommandProvider)
                                                    :commands)
                                         "\n")))
      ;; An unsaved edit: the agent must see it.
      (goto-char (point-min))
      (insert "# 🐍 greetings, unsaved\n")
      (add-hook 'agent-lsp-run-finished-functions (lambda (result) (setq finished result)))
      (e2e-ask)
      (e2e-wait "the run to finish" (lambda () finished))
      ;; The diff opened; agent-lsp-show opens it again from the server.
      (let ((diff (agent-lsp--proposal-buffer-name agent-lsp--proposal)))
        (kill-buffer diff)
        (agent-lsp-show)
        (e2e-wait "agent-lsp-show's diff" (lambda () (get-buffer diff)))
        (e2e-write "diff" (with-current-buffer diff (buffer-string))))
      (e2e-write "before" (buffer-string))
      (e2e-apply)
      (e2e-wait "the proposal to be applied" (lambda () (null agent-lsp--proposal)))
      (e2e-write "buffer" (buffer-string))
      (e2e-write "modified" (if (buffer-modified-p) "modified" "saved"))
      (let ((new (get-file-buffer (expand-file-name "new/greeting.txt" (getenv "WORKSPACE")))))
        (e2e-write "new" (if new
                             (with-current-buffer new
                               (format "%s|%s|%s" (buffer-string) (buffer-modified-p) buffer-read-only))
                           "no buffer")))
      (agent-lsp-cancel)
      (e2e-wait "agent-lsp-cancel's answer"
                (lambda () (with-current-buffer "*Messages*"
                             (save-excursion
                               (goto-char (point-max))
                               (search-backward "agent-lsp: nothing was running" nil t)))))
      (e2e-write "result" "ok"))
  (error (e2e-write "result" (format "%S" err))))
(kill-emacs 0)

;;; e2e.el ends here
