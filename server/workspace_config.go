package server

import (
	"reflect"
	"slices"
	"sync"

	"github.com/agent-lsp/agent-lsp/agent"
	"github.com/agent-lsp/agent-lsp/agent/config"
	"github.com/agent-lsp/agent-lsp/server/agentrun"
)

// workspaceConfig is the workspace's folders and the settings runs get
// from them and from the editor. A folder never changes once listed
// (folder); the list is replaced whole, so a caller may keep the one it
// got (openFolders).
type workspaceConfig struct {
	env config.Env // reads the environment, for every folder's settings; set at New

	mu sync.Mutex // guards the fields below
	// folders are the workspace's roots, in the client's order (folders.go);
	// noFolder stands for the primary when there is none. root,
	// fileSettings and memory are the primary's (setFoldersLocked).
	folders      []*folder
	noFolder     *folder
	root         string
	fileSettings config.Settings // files and environment
	memory       *agent.Memory
	initSettings config.Settings // initializationOptions, filtered as a push is unless the client's are the user's
	// initAsSent is initializationOptions as sent: a push that only repeats
	// them (Helix sends its config again) is no news, and warns of nothing
	// a second time.
	initAsSent config.Settings
	// pushedSettings are the latest didChangeConfiguration's, on top of
	// initSettings: a client that pushes an empty section (eglot does, right
	// after initialize) must not wipe what it sent at initialize.
	pushedSettings config.Settings
	notes          []string // what loading the configuration ignored or failed on
}

// start takes what initialize found: the folders (noFolder standing for
// the primary when there are none), initializationOptions filtered
// (initSettings) and as sent, and what loading them said (notes). It
// returns the roots named for a message.
func (w *workspaceConfig) start(noFolder *folder, folders []*folder, initSettings, initAsSent config.Settings, notes []string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noFolder = noFolder
	w.initSettings, w.initAsSent, w.notes = initSettings, initAsSent, notes
	w.setFoldersLocked(folders)
	return w.rootsLocked()
}

// changeFolders drops the folders gone says and adds those of added not
// listed yet, and keeps warnings with the notes. It returns the roots
// named for a message.
func (w *workspaceConfig) changeFolders(gone func(*folder) bool, added []*folder, warnings []string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	folders := slices.DeleteFunc(slices.Clone(w.folders), gone)
	for _, f := range added {
		if !slices.ContainsFunc(folders, func(o *folder) bool { return o.dir == f.dir }) {
			folders = append(folders, f)
		}
	}
	w.setFoldersLocked(folders)
	w.notes = append(w.notes, warnings...)
	return w.rootsLocked()
}

// push takes a didChangeConfiguration's settings. Unless they are the
// user's alone (usersOwn), they are filtered like an untrusted project
// file; ignored says what was left out, or nothing where the push only
// repeats initializationOptions. Every folder's allowlist follows; what
// the user allowed "always" stays allowed.
func (w *workspaceConfig) push(user config.Settings, usersOwn bool) (ignored []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !usersOwn {
		asPushed := user
		asPushed.Fallback = slices.Clone(user.Fallback) // UntrustedPush filters it in place
		ignored = config.UntrustedPush(config.Merge(w.fileSettings, w.initSettings), &user)
		if reflect.DeepEqual(config.Merge(w.initAsSent, asPushed), config.Merge(w.initAsSent, user)) {
			ignored = nil // it only repeats initializationOptions (Helix pushes its config again)
		}
	}
	w.pushedSettings = user
	for _, f := range append(slices.Clone(w.folders), w.noFolder) {
		agentrun.RefreshPolicy(f.policy, w.folderSettingsLocked(f))
	}
	return ignored
}

// openFolders are the workspace's folders now; the slice is never
// changed after (changeFolders makes a new one).
func (w *workspaceConfig) openFolders() []*folder {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.folders
}

// primaryMemory is the notes kept for the primary folder (nil before
// initialize).
func (w *workspaceConfig) primaryMemory() *agent.Memory {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.memory
}

// status is what agent.status shows of the configuration: the primary
// folder's directory, its effective settings, and what loading the
// configuration ignored or failed on.
func (w *workspaceConfig) status() (root string, settings config.Settings, notes []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.root, w.settingsLocked(), slices.Clone(w.notes)
}

// settings is the effective configuration of the primary folder now.
func (w *workspaceConfig) settings() config.Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.settingsLocked()
}

// folderSettings is the effective configuration of a run in f now.
func (w *workspaceConfig) folderSettings(f *folder) config.Settings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.folderSettingsLocked(f)
}

// settingsLocked is the effective configuration of the primary folder
// (setFoldersLocked): files and environment, then the editor's settings
// (initializationOptions, then the latest didChangeConfiguration). Secrets
// always come from the environment.
func (w *workspaceConfig) settingsLocked() config.Settings {
	return config.Merge(w.fileSettings, w.editorSettingsLocked())
}

// folderSettingsLocked is settingsLocked for a run in f: its own project
// file under the user's and the environment's, then the editor's.
func (w *workspaceConfig) folderSettingsLocked(f *folder) config.Settings {
	return config.Merge(f.settings, w.editorSettingsLocked())
}

// editorSettingsLocked are the editor's settings: initializationOptions,
// then the latest didChangeConfiguration.
func (w *workspaceConfig) editorSettingsLocked() config.Settings {
	editor := config.Merge(w.initSettings, w.pushedSettings)
	if w.pushedSettings.Allowlist != nil {
		// A pushed allowlist is the whole list now: an entry the user removed
		// must stop being allowed, not live on from initialize.
		editor.Allowlist = w.pushedSettings.Allowlist
	}
	return editor
}
