#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

// The notes app's document, as written for iOS: only the import block above differs.

/// A note: one file holding the text as UTF-8.
class Note: UIDocument {
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
