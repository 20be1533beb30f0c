#if !canImport(UniformTypeIdentifiers)
import Foundation
import OrderedCollections
import PropertyList
import Synchronization
import UniformTypes

/// The process's uniform types, standing in for the system's Launch
/// Services database: ICTKit's built-in declarations (system types and
/// well-known apps' types), then whatever Info.plists the program
/// registers, then the types code declares with `UTType(exportedAs:)` or
/// `UTType(importedAs:)` that no Info.plist declares.
enum UTTypeDatabase {
    struct State: Sendable {
        var registry = TypeRegistry.builtIn
        /// Lower-cased identifiers declared only in code, not by a declaration.
        var declaredInCode: Set<String> = []
    }

    static let state = Mutex(State())

    /// The registry as it is now; a copy, so a query sees one state.
    static var registry: TypeRegistry { state.withLock { $0.registry } }

    /// Registers `identifier` as declared by code, conforming to `parent`,
    /// unless some declaration already registered it.
    static func declareInCode(_ identifier: String, conformingTo parent: UTType?) {
        state.withLock { state in
            guard state.registry.index(of: identifier) == nil else { return }
            var set = TypeDeclarationSet(infoPlist: .dictionary([:]), file: nil)
            set.imported = [
                TypeDeclaration(
                    identifier: identifier, conformsTo: parent.map { [$0.identifier] } ?? [],
                    origin: .imported, source: DeclarationSource(file: nil))
            ]
            state.registry.add(set)
            state.declaredInCode.insert(identifier.lowercased())
        }
    }
}

extension UTType {
    /// Adds the type declarations of the Info.plist at `url`
    /// (`UTExportedTypeDeclarations`, `UTImportedTypeDeclarations`,
    /// `CFBundleDocumentTypes`) to the types every `UTType` sees, with
    /// Apple's precedence: a system type is never replaced, an exported
    /// declaration replaces an imported one.
    ///
    /// The one addition to Apple's API: on Apple platforms the system reads
    /// the app bundle's Info.plist itself, and this method does not exist.
    /// Costs a read of the file and a recomputation of conformance (about a
    /// millisecond for a thousand types).
    ///
    /// - Throws: `UniformTypeError` when the file cannot be read or is not
    ///   a property list. Badly shaped entries are skipped, not thrown.
    public static func registerDeclarations(fromInfoPlistAt url: URL) throws {
        let set = try TypeDeclarationSet.read(contentsOf: url.path)
        UTTypeDatabase.state.withLock { state in
            state.registry.add(set)
            // A declaration now stands where code declared the type.
            for declaration in set.exported + set.imported {
                state.declaredInCode.remove(declaration.identifier.lowercased())
            }
        }
    }
}
#endif
