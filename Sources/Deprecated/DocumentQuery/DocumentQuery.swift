// `DocumentQuery`: the name of `LiveQuery`, the live query (`MetadataQuery`), before 0.13 (issue 43: a module's name says
// what it holds). `import DocumentQuery` keeps compiling for one release: this module re-exports `LiveQuery` whole.
// Deprecated: import `LiveQuery`; removed in 0.14.
@_exported import LiveQuery
