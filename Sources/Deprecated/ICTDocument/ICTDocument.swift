// `ICTDocument`: the name of `DocumentFormats`, the .ict, .ptk and note formats, before 0.13 (issue 43: a module's name says
// what it holds). `import ICTDocument` keeps compiling for one release: this module re-exports `DocumentFormats` whole.
// Deprecated: import `DocumentFormats`; removed in 0.14.
@_exported import DocumentFormats
