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
;;
;; With $FLOW next-edit it instead turns on `agent-lsp-next-edit-mode',
;; renames greet's parameter, waits for the suggestion renaming its use,
;; presses TAB (jump) and TAB (accept), then renames again and presses C-g:
;; shown, jumped, accepted, status (agent.status's nextEdits) and
;; dismissed go to $OUT.

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
        ;; eglot's settings can't turn next edits on (a repository could
        ;; set them); the test gives eglot's server a config.toml instead.
        agent-lsp-settings `(:model "gpt-emacs"
                             ,@(when (getenv "NES_MODEL")
                                 `(:nes (:model ,(getenv "NES_MODEL") :baseUrl ,(getenv "NES_BASE_URL")
                                         :debounceMs 10)))))
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

(defun e2e-start ()
  "Start $CLIENT on $WORKSPACE/hello.py and wait for it to attach agent-lsp."
  (funcall (if (equal (getenv "CLIENT") "lsp-mode") #'e2e-start-lsp-mode #'e2e-start-eglot)
           (expand-file-name "hello.py" (getenv "WORKSPACE")))
  (e2e-wait "the client to attach agent-lsp to the buffer" #'agent-lsp--buffer-connection))

(defun e2e-ask-apply ()
  "The ask, show, apply and cancel flow."
  (let (finished)
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
                             (search-backward "agent-lsp: nothing was running" nil t)))))))


(defun e2e-shown ()
  "What the suggestion's overlays show: replaced, inserted, face and hint."
  (let (parts)
    (dolist (ov (overlays-in (point-min) (point-max)))
      (pcase (overlay-get ov 'agent-lsp-next-edit)
        ('edit (push (format "replaced=%s|inserted=%s|face=%s"
                             (buffer-substring-no-properties (overlay-start ov) (overlay-end ov))
                             (overlay-get ov 'after-string) (overlay-get ov 'face))
                     parts))
        ('hint (push (format "hint=%s" (overlay-get ov 'after-string)) parts))))
    (mapconcat #'identity (sort parts #'string<) "\n")))

(defun e2e-status ()
  "agent.status's nextEdits, as model|calls|accepted."
  (let (status)
    (agent-lsp--execute (agent-lsp--buffer-connection) "agent.status" nil
                        (lambda (result) (setq status (agent-lsp--get result :nextEdits))))
    (e2e-wait "agent.status" (lambda () status))
    (format "%s|%s|%s" (agent-lsp--get status :model) (agent-lsp--get status :calls)
            (agent-lsp--get status :accepted))))

(defun e2e-rename-parameter (to)
  "Rename greet's parameter to TO, as typing would: point ends after it."
  (goto-char (point-min))
  (re-search-forward "def greet(\\(\\w+\\)")
  (delete-region (match-beginning 1) (match-end 1))
  (goto-char (match-beginning 1))
  (insert to))

(defun e2e-next-edit ()
  "Rename a parameter; the suggestion renames its use; TAB jumps, TAB accepts.
Then another rename, whose suggestion C-g dismisses."
  (agent-lsp-next-edit-mode 1)
  (e2e-rename-parameter "who")
  (e2e-wait "the next edit to show" (lambda () agent-lsp--next-edit))
  (e2e-write "shown" (e2e-shown))
  (execute-kbd-macro (kbd "TAB"))
  (e2e-write "jumped" (format "%d:%d|%s" (line-number-at-pos) (- (point) (line-beginning-position))
                              (if agent-lsp--next-edit-hint "hint" "no hint")))
  (execute-kbd-macro (kbd "TAB"))
  (e2e-write "accepted" (format "%s|%s" (buffer-string) (e2e-shown)))
  (e2e-write "status" (e2e-status))
  (e2e-rename-parameter "person")
  (e2e-wait "the second next edit to show" (lambda () agent-lsp--next-edit))
  (execute-kbd-macro (kbd "C-g"))
  (e2e-write "dismissed" (format "%s|%s|%s" (buffer-string) (e2e-shown) agent-lsp--next-edit)))

(condition-case err
    (progn
      (e2e-start)
      (if (equal (getenv "FLOW") "next-edit") (e2e-next-edit) (e2e-ask-apply))
      (e2e-write "result" "ok"))
  (error (e2e-write "result" (format "%S" err))))
(kill-emacs 0)

;;; e2e.el ends here
