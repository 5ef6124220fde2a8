;;; capabilities.el --- print what agent-lsp.el tells the server  -*- lexical-binding: t; -*-

;; Run by e2e_test.go's TestClientsSayWhoseSettingsTheyAre: prints, as JSON,
;; the experimental capabilities eglot sends for agent-lsp and those the
;; lsp-mode client registers.  lsp-mode is not needed: its registration
;; functions are stubbed to record what the package registers.

;;; Code:

(require 'json)

(defvar capabilities-registered nil "The client `agent-lsp' registered.")
(defun make-lsp-client (&rest args) args)
(defun lsp-stdio-connection (command &optional _test) command)
(defun lsp-register-client (client) (setq capabilities-registered client))

(require 'agent-lsp)
(agent-lsp-register-lsp-mode-client)

(let ((server (make-instance 'eglot-lsp-server
                             :process (make-pipe-process :name "capabilities" :noquery t))))
  (setf (eglot--project server) (cons 'transient default-directory))
  (princ (json-encode
          `((eglot . ,(plist-get (eglot-client-capabilities server) :experimental))
            (lspMode . ,(cdr (assq 'experimental (plist-get capabilities-registered :custom-capabilities))))))))

;;; capabilities.el ends here
