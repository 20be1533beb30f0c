// `DocumentVersions`: the name of `ConflictVersions`, the conflict versions, before 0.13 (issue 43: a module's name says
// what it holds). `import DocumentVersions` keeps compiling for one release: this module re-exports `ConflictVersions` whole.
// Deprecated: import `ConflictVersions`; removed in 0.14.
@_exported import ConflictVersions
