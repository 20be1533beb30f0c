// `Documents`: the name of `DocumentObject`, the document object (`Document<Contents>`, UIDocument's meaning), before 0.13 (issue 43: a module's name says
// what it holds). `import Documents` keeps compiling for one release: this module re-exports `DocumentObject` whole.
// Deprecated: import `DocumentObject`; removed in 0.14.
@_exported import DocumentObject
