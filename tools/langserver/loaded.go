package langserver

// LoadedProbe is how a server is asked whether it loaded the package or
// project of a file: without that, its silence about the file proves
// nothing.
type LoadedProbe string

const (
	// LoadedByGoplsPackages asks gopls's gopls.packages command.
	LoadedByGoplsPackages LoadedProbe = "gopls.packages"
	// LoadedByTSServerProject asks tsserver's projectInfo: a file in an
	// inferred project is in no tsconfig.json's or jsconfig.json's.
	LoadedByTSServerProject LoadedProbe = "tsserver.projectInfo"
)
