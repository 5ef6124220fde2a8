package sandbox

// windowsHost: variable names compare without case, and Windows programs
// get their own dirs' variables (environFor).
const windowsHost = true
