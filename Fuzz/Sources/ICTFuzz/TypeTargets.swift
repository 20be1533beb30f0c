import Foundation
import PropertyList
import UniformTypes

private let validator = TypeDeclarationValidator()

/// Info.plist type declarations: declarations are read and validated, and
/// the same property list written as XML and read again declares the same.
func fuzzInfoPlist(_ bytes: [UInt8]) {
    guard let value = try? PropertyListReader(limits: fuzzLimits).read(Data(bytes)).value else { return }
    let declarations = TypeDeclarationSet(infoPlist: value, file: nil)
    _ = validator.validate(declarations)
    guard let xml = try? XMLPropertyListWriter().encode(value),
        let again = try? XMLPropertyListReader(limits: fuzzLimits).read(Data(xml))
    else { return }
    let declarationsAgain = TypeDeclarationSet(infoPlist: again, file: nil)
    require(declarationsAgain == declarations, "the declarations changed through XML: \(brief(declarations)) became \(brief(declarationsAgain))")
}

/// shared-mime-info XML: what is read has the lower-cased names the reader promises.
func fuzzSharedMimeInfo(_ bytes: [UInt8]) {
    guard let declarations = bytes.withUnsafeBytes({ try? SharedMimeInfoReader.read($0, file: nil) }) else { return }
    for declaration in declarations {
        for name in [declaration.mimeType] + declaration.aliases + declaration.parents {
            require(name == name.lowercased(), "MIME name \(brief(name)) is not lower-cased")
        }
    }
}

/// shared-mime-info's binary cache (mime.cache): what is read has
/// lower-cased names, one entry per type, and every parent named is itself
/// an entry, as documented.
func fuzzSharedMimeInfoCache(_ bytes: [UInt8]) {
    guard let declarations = bytes.withUnsafeBytes({ try? SharedMimeInfoCacheReader.read($0, file: nil) }) else { return }
    let types = Set(declarations.map(\.mimeType))
    require(types.count == declarations.count, "a type has two entries: \(brief(declarations.map(\.mimeType)))")
    for declaration in declarations {
        for name in [declaration.mimeType] + declaration.aliases + declaration.parents {
            require(name == name.lowercased(), "MIME name \(brief(name)) is not lower-cased")
        }
        for parent in declaration.parents {
            require(types.contains(parent), "parent \(brief(parent)) of \(brief(declaration.mimeType)) has no entry")
        }
    }
    // The conformance graph reads the same bytes its own way (names
    // interned from the mapped bytes, globs unread): it must accept them
    // too and give every type it makes the registry's parents.
    var registry = TypeRegistry.system
    registry.add(declarations)
    var graph = TypeConformanceGraph()
    graph.add(TypeDeclarationSet.system)
    // (A do/catch around a typed-throws closure crashed swift-frontend 6.3.1's inliner here.)
    let refusal: String? = bytes.withUnsafeBytes { buffer in
        do {
            try graph.addSharedMimeInfoCache(buffer, types: nil)
            return nil
        } catch {
            return "\(error)"
        }
    }
    require(refusal == nil, "the graph refused a cache the reader read: \(refusal ?? "")")
    for identifier in graph.allIdentifiers {
        require(
            graph.parents(of: identifier) == registry.parents(of: identifier),
            "parents of \(brief(identifier)): graph \(brief(graph.parents(of: identifier))), registry \(brief(registry.parents(of: identifier)))")
    }
}
