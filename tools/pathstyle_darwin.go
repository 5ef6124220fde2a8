package tools

// hostPaths: macOS's volumes ignore case unless formatted otherwise, which
// a workspace checks for its own (caseInsensitive).
var hostPaths = pathStyle{foldCase: true}
