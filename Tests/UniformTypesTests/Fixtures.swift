import Foundation
import TestSupport

/// Paths the UniformTypes tests read, found through #filePath.
enum Fixtures {
    /// `../shared/interop/uti-apps` (tests that read it take the `.interopCorpus` trait).
    static let utiApps = InteropCorpus.url("uti-apps")
    static let freedesktopXML = "/usr/share/mime/packages/freedesktop.org.xml"
    static var freedesktopExists: Bool { FileManager.default.fileExists(atPath: freedesktopXML) }

    static func schema(_ name: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("Schemas/\(name)"), encoding: .utf8)
    }
}
