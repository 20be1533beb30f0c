// Apple's names on every platform, the pattern of OpenCombine's shim: on
// Apple platforms this module re-exports Foundation (`FileWrapper`) and
// UniformTypeIdentifiers (`UTType`); elsewhere it declares both itself, built
// on PackageFormat and UniformTypes. Code written against Apple's API
// imports this module instead of UniformTypeIdentifiers and is otherwise
// unchanged. `AppleCompatibility.docc/Compatibility.md` lists what behaves
// differently off Apple platforms.

#if canImport(Darwin)
@_exported import Foundation
#endif
#if canImport(UniformTypeIdentifiers)
@_exported import UniformTypeIdentifiers
#endif
