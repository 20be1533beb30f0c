extension TypedStreamDocument {
    /// The value a key path names: dot-separated indices from the root
    /// value. At an object, an index picks one of its fields (all groups
    /// flattened, in order); at an array or struct, an element or field.
    /// The empty path is the root value: `0` is the root object's first
    /// field, `2.1` the second field of the object that is its third field.
    ///
    /// Throws ``TypedStreamError/Code/keyPathNotFound`` at the byte offset
    /// of the object where the path leaves the document.
    public func value(atKeyPath keyPath: String) throws(TypedStreamError) -> TypedStreamValue {
        guard var current = rootValue else { throw TypedStreamError(.keyPathNotFound, at: 0, "the stream holds no values") }
        var offset = root.first?.byteOffset ?? 0
        var walked: [Substring] = []
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) where !keyPath.isEmpty {
            let here = walked.isEmpty ? "the root" : walked.joined(separator: ".")
            guard let index = Int(component), index >= 0 else {
                throw TypedStreamError(.keyPathNotFound, at: offset, "key path component '\(component)' after \(here) is not an index")
            }
            let children: [TypedStreamValue]
            switch current {
            case .object(let objectIndex?):
                offset = objects[objectIndex].byteOffset
                children = fields(of: objects[objectIndex]).map(\.value)
            case .array(let elements): children = elements
            case .structure(_, let fields): children = fields
            default: throw TypedStreamError(.keyPathNotFound, at: offset, "\(here) has no fields, so no '\(component)'")
            }
            guard index < children.count else {
                throw TypedStreamError(.keyPathNotFound, at: offset, "\(here) has \(children.count) fields, so no '\(component)'")
            }
            current = children[index]
            walked.append(component)
        }
        return current
    }
}
