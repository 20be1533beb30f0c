import Foundation

/// Paths the UniformTypes tests read, found through #filePath.
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let utiApps = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/interop/uti-apps")
    static var utiAppsExist: Bool { FileManager.default.fileExists(atPath: utiApps.path) }
    static let freedesktopXML = "/usr/share/mime/packages/freedesktop.org.xml"
    static var freedesktopExists: Bool { FileManager.default.fileExists(atPath: freedesktopXML) }

    static func schema(_ name: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("Schemas/\(name)"), encoding: .utf8)
    }
}
