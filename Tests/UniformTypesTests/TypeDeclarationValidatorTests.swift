import PropertyList
import Testing
import UniformTypes

/// What the validator calls an error and what only a warning.
struct TypeDeclarationValidatorTests {
    private func findings(_ plist: PropertyListValue) -> [String] {
        TypeDeclarationValidator().validate(TypeDeclarationSet(infoPlist: plist, file: "Info.plist"))
            .map { "\($0.severity.rawValue) \($0.kind.rawValue) \($0.keyPath)" }
    }

    /// Apple's documented CFBundleTypeRole values, MDImporter (Spotlight importers) among them.
    @Test(arguments: ["Editor", "Viewer", "Shell", "QLGenerator", "MDImporter", "None"])
    func documentedRolesAreAccepted(_ role: String) {
        #expect(findings(["CFBundleDocumentTypes": [["CFBundleTypeRole": .string(role), "LSItemContentTypes": ["public.data"]]]]) == [])
    }

    @Test func anUndocumentedRoleIsAnError() {
        #expect(
            findings(["CFBundleDocumentTypes": [["CFBundleTypeRole": "Importer", "LSItemContentTypes": ["public.data"]]]])
                == ["error invalidValue CFBundleDocumentTypes[0].CFBundleTypeRole"])
    }

    /// ICTKit knows only part of the system's types: a public.* or
    /// com.apple.* identifier it does not know may still be the system's.
    @Test func anUnknownSystemDomainIdentifierIsAWarning() {
        let plist: PropertyListValue = [
            "UTImportedTypeDeclarations": [
                [
                    "UTTypeIdentifier": "com.example.notes",
                    "UTTypeConformsTo": ["public.data", "public.not-yet-known"],
                ]
            ],
            "CFBundleDocumentTypes": [["CFBundleTypeRole": "Viewer", "LSItemContentTypes": ["com.apple.not-yet-known"]]],
        ]
        #expect(
            findings(plist) == [
                "warning unknownConformance UTImportedTypeDeclarations[0].UTTypeConformsTo[1]",
                "warning undeclaredDocumentType CFBundleDocumentTypes[0].LSItemContentTypes[0]",
            ])
        let messages = TypeDeclarationValidator().validate(TypeDeclarationSet(infoPlist: plist, file: nil)).map(\.message)
        #expect(messages.allSatisfy { $0.contains("is not among ICTKit's") })
    }

    /// A malformed identifier is certainly wrong, whatever else is unknown.
    @Test func aMalformedIdentifierStaysAnError() {
        #expect(
            findings(["CFBundleDocumentTypes": [["CFBundleTypeRole": "Viewer", "LSItemContentTypes": ["public.mpeg-4-audio "]]]])
                == ["error malformedIdentifier CFBundleDocumentTypes[0].LSItemContentTypes[0]"])
    }
}
