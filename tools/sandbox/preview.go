package sandbox

import (
	"os"
	"path/filepath"
)

// Preview is the World a command run with spec in the workspace at root
// gets at caps' level on this machine, built by the function Run builds it
// with. What a run makes for its commands — the view of the workspace
// (overlay or copy, as the tools package makes it for the level) and, below
// full, the command's own scratch dir — are stand-ins here, empty, under
// one temporary dir that is removed before Preview returns; spec's View,
// Cache and GitDir are Preview's to set. The placeholders name the
// stand-ins for Format: $VIEW the run's view dir, $SCRATCH the command's
// own. A bounded view's layer is closed before Preview returns: the World
// says there is one, nothing more. With spec.Server, the World is a
// language server's (its program found as Start finds it), whose own
// cache is named $CACHE.
func Preview(caps Caps, root string, spec Spec) (World, []Placeholder, error) {
	if spec.Server {
		var err error
		if spec, err = serverSpec(spec); err != nil {
			return World{}, nil, err
		}
	}
	made, err := MkdirTemp("preview")
	if err != nil {
		return World{}, nil, err
	}
	defer RemoveTree(made)
	dir, err := filepath.EvalSymlinks(made) // as newScratch's: Seatbelt matches real paths
	if err != nil {
		return World{}, nil, err
	}
	view, scratch := filepath.Join(dir, "view"), filepath.Join(dir, "scratch")
	var dirs []string
	switch {
	case caps.Level == Full && caps.Mounts == "overlay":
		spec.View, spec.Cache = View{Root: root, Lower: root, Staged: filepath.Join(view, "staged")}, ""
		dirs = append(dirs, spec.View.Staged)
		if caps.Bounded {
			spec.View.Layer = NewLayer()
			defer spec.View.Layer.Close()
		} else {
			spec.View.Upper, spec.View.Work, spec.Cache = filepath.Join(view, "upper"), filepath.Join(view, "work"), filepath.Join(view, "cache")
			dirs = append(dirs, spec.View.Upper, spec.View.Work, spec.Cache)
		}
	default:
		spec.View, spec.Cache = View{Root: root, Copy: filepath.Join(view, "copy")}, filepath.Join(view, "cache")
		dirs = append(dirs, spec.View.Copy, spec.Cache)
	}
	placeholders := []Placeholder{{"$VIEW", view}}
	if spec.Server {
		// Its own, kept for its life: not the run's.
		spec.Cache = filepath.Join(dir, "cache")
		dirs = append(dirs, spec.Cache)
		placeholders = append(placeholders, Placeholder{"$CACHE", spec.Cache})
		if spec.View.Layer != nil {
			spec.View.Layer.Close()
			spec.View.Layer = nil
		}
	}
	if caps.Level == Full {
		scratch = ""
	} else {
		dirs = append(dirs, filepath.Join(scratch, "home"), filepath.Join(scratch, "tmp"))
		placeholders = append(placeholders, Placeholder{"$SCRATCH", scratch})
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return World{}, nil, err
		}
	}
	spec.GitDir = gitRepository(filepath.Join(root, ".git"))
	w, err := thisHost().world(caps, spec, scratch)
	return w, placeholders, err
}
