#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

/// The notes app's document, as written for iOS: one file holding the note as UTF-8.
final class CloudNote: UIDocument {
    var text = ""

    override func contents(forType typeName: String) throws -> Any {
        Data(text.utf8)
    }

    override func load(fromContents contents: Any, ofType typeName: String?) throws {
        guard let data = contents as? Data, let text = String(data: data, encoding: .utf8) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.text = text
    }
}
