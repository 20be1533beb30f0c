import SystemPackage

extension RawFileName {
    /// The `FilePath` naming the bytes `text` stands for (`bytes(_:)`): a
    /// name that is not UTF-8, carried as U+10FF00 + byte, names the same
    /// file again. The way back is `text(_:)`.
    package static func filePath(_ text: String) -> FilePath {
        let characters = bytes(text).map { CChar(bitPattern: $0) } + [0]
        return characters.withUnsafeBufferPointer { FilePath(platformString: $0.baseAddress!) }  // Never empty: the NUL.
    }

    /// `filePath` as the kit's text for a path: its bytes as
    /// `decoding(cString:)` gives them, byte for byte.
    package static func text(_ filePath: FilePath) -> String {
        filePath.withPlatformString(decoding(cString:))
    }
}
