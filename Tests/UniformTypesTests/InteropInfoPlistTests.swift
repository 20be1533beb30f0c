import Foundation
import TestSupport
import Testing
import UniformTypes

/// Acceptance 2: every Info.plist under ../shared/interop/uti-apps loads, and
/// the validator's findings for each are pinned, with why each is right.
@Suite(.interopCorpus)
struct InteropInfoPlistTests {
    static let apps = [
        "CotEditor/Info.plist", "IINA/Info.plist", "Sequel-Ace/Info.plist", "Skim/Info.plist",
        "TextEdit-AppleSample/Info-TextEdit.plist", "iTerm2/release-iTerm2.plist",
    ]

    private func findings(_ app: String) throws -> [String] {
        let declarations = try TypeDeclarationSet.read(contentsOf: Fixtures.utiApps.appendingPathComponent(app).path)
        return TypeDeclarationValidator().validate(declarations).map { "\($0.severity.rawValue) \($0.kind.rawValue) \($0.keyPath)" }
    }

    @Test(arguments: apps) func loadsIntoARegistry(_ app: String) throws {
        let declarations = try TypeDeclarationSet.read(contentsOf: Fixtures.utiApps.appendingPathComponent(app).path)
        #expect(!declarations.documentTypes.isEmpty)
        var registry = TypeRegistry.system
        registry.add(declarations)
        for declaration in declarations.exported + declarations.imported {
            #expect(registry.declaration(for: declaration.identifier) != nil)
        }
    }

    @Test func coteditor() throws {
        // Its exported types are under the app's own domain and reach
        // public.item; its imports of public.* types are of types the system
        // declares (the system's declaration wins, harmlessly); both document
        // types name declared types; no LSTypeIsPackage disagrees. One tag:
        // CotEditor imports com.coteditor.rust for "rs", which macOS 13's
        // public.rust-source already owns.
        #expect(
            try findings("CotEditor/Info.plist") == [
                "warning systemOwnedTag UTImportedTypeDeclarations[36].UTTypeTagSpecification.public.filename-extension[0]"
            ])
    }

    @Test func iina() throws {
        let all = try findings("IINA/Info.plist")
        // IINA imports its own identifiers (io.iina.flac, io.iina.mov…) for
        // extensions and MIME types the system's types already own (flac,
        // wav, mov, qt, mp4, m4v, mp3, ts, webm, m3u8, gif, image/gif…):
        // lookups prefer the system type, so these tags never select IINA's
        // types. 42 of them with the macOS 13 system types.
        let owned = all.filter { $0.hasPrefix("warning systemOwnedTag UTImportedTypeDeclarations[") }
        #expect(owned.count == 42)
        #expect(
            all.filter { !owned.contains($0) } == [
                // LSTypeIsPackage is the integer 1 (CFBundleDocumentTypes[24], "IINA Plugin");
                // Apple documents it as a Boolean.
                "warning invalidValue CFBundleDocumentTypes[24].LSTypeIsPackage",
                // "public.mpeg-4-audio " (io.iina.mpeg4-audio) has a trailing space:
                // not a well-formed identifier, so the conformance is lost.
                "error malformedIdentifier UTImportedTypeDeclarations[25].UTTypeConformsTo[1]",
                // "Matroska audio" lists "" in LSItemContentTypes: an empty identifier.
                "error malformedIdentifier CFBundleDocumentTypes[1].LSItemContentTypes[0]",
            ])
    }

    @Test func sequelAce() throws {
        #expect(
            try findings("Sequel-Ace/Info.plist") == [
                // "saBundle" has upper case (extensions match without case, so the
                // convention is lower case); "sabundle" then repeats it.
                "warning malformedTag UTExportedTypeDeclarations[2].UTTypeTagSpecification.public.filename-extension[0]",
                "warning duplicate UTExportedTypeDeclarations[2].UTTypeTagSpecification.public.filename-extension[1]",
                // "spBundle" repeats "spbundle" without regard to case.
                "warning duplicate UTExportedTypeDeclarations[3].UTTypeTagSpecification.public.filename-extension[1]",
                // "spTheme" has upper case; "sptheme" then repeats it.
                "warning malformedTag UTExportedTypeDeclarations[5].UTTypeTagSpecification.public.filename-extension[0]",
                "warning duplicate UTExportedTypeDeclarations[5].UTTypeTagSpecification.public.filename-extension[1]",
                // com.sequelpro.SequelPro.spf and .spfs (the predecessor app's types) are
                // named by document types but declared nowhere: no import declares them.
                "warning undeclaredDocumentType CFBundleDocumentTypes[0].LSItemContentTypes[0]",
                "warning undeclaredDocumentType CFBundleDocumentTypes[1].LSItemContentTypes[0]",
                // Legacy CFBundleTypeExtensions "saBundle" and "spBundle" have upper case.
                "warning malformedTag CFBundleDocumentTypes[2].CFBundleTypeExtensions[0]",
                "warning malformedTag CFBundleDocumentTypes[2].CFBundleTypeExtensions[2]",
                // com.google.code.sequel-pro.spTheme is declared nowhere.
                "warning undeclaredDocumentType CFBundleDocumentTypes[3].LSItemContentTypes[1]",
                // Legacy extension "spTheme" has upper case.
                "warning malformedTag CFBundleDocumentTypes[3].CFBundleTypeExtensions[0]",
            ])
    }

    @Test func skim() throws {
        #expect(
            try findings("Skim/Info.plist") == [
                // "PDF Bundle": net.sourceforge.skim-app.pdfd conforms to com.apple.package
                // (its own export) but the document type does not set LSTypeIsPackage.
                "warning packageMismatch CFBundleDocumentTypes[1].LSItemContentTypes[0]",
                // "Notes as RTFD": com.apple.rtfd is a package type, LSTypeIsPackage not set.
                "warning packageMismatch CFBundleDocumentTypes[9].LSItemContentTypes[0]",
            ])
    }

    @Test func textEdit() throws {
        // Clean: org.openoffice.text and org.openoffice.text-template (the old
        // OpenOffice.org formats) are among macOS 13's system types.
        #expect(try findings("TextEdit-AppleSample/Info-TextEdit.plist") == [])
    }

    @Test func iterm2() throws {
        // Clean: legacy document types by extension only, plus public.folder,
        // public.data, public.unix-executable and public.html, all system types.
        #expect(try findings("iTerm2/release-iTerm2.plist") == [])
    }
}
