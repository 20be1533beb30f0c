// `DocumentPackage`: the name of `PackageFormat`, the package format (file wrappers, safe saves, zip), before 0.13 (issue 43: a module's name says
// what it holds). `import DocumentPackage` keeps compiling for one release: this module re-exports `PackageFormat` whole.
// Deprecated: import `PackageFormat`; removed in 0.14.
@_exported import PackageFormat
