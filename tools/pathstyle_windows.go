package tools

// hostPaths: Windows spells paths with drives and "\", and its volumes
// (NTFS, FAT) ignore case.
var hostPaths = pathStyle{windows: true, foldCase: true}
