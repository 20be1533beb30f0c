import Foundation
import Testing
import UniformTypes

/// Acceptance 2: every Info.plist under ../shared/interop/uti-apps loads, and
/// the validator's findings for each are pinned, with why each is right.
@Suite(.enabled(if: Fixtures.utiAppsExist, "needs ../shared/interop/uti-apps (the shared interop corpus beside the repository)"))
struct InteropInfoPlistTests {
    static let apps = ["CotEditor/Info.plist", "IINA/Info.plist", "Sequel-Ace/Info.plist", "Skim/Info.plist",
                       "TextEdit-AppleSample/Info-TextEdit.plist", "iTerm2/release-iTerm2.plist"]

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
        // Clean: every exported type is under the app's own domain and reaches
        // public.item; its imports of public.* types are of types the system
        // declares (the system's declaration wins, harmlessly); both document
        // types name declared types; no LSTypeIsPackage disagrees.
        #expect(try findings("CotEditor/Info.plist") == [])
    }

    @Test func iina() throws {
        #expect(try findings("IINA/Info.plist") == [
            // LSTypeIsPackage is the integer 1 (CFBundleDocumentTypes[24], "IINA Plugin");
            // Apple documents it as a Boolean.
            "warning invalidValue CFBundleDocumentTypes[24].LSTypeIsPackage",
            // IINA imports its own identifiers (io.iina.flac, io.iina.mov…) for
            // extensions and MIME types the system's types already own (flac,
            // aiff, aif, wav, ac3, avi, mov, qt, asf, wma, wmv, mpg, mpeg, m2v,
            // mp4, m4v, m4a, mp3, ps, ts, m2ts, mts, 3gp, 3gpp, 3g2, 3gp2, webm,
            // m3u8, m3u, gif, image/gif): lookups prefer the system type, so
            // these tags never select IINA's types.
            "warning systemOwnedTag UTImportedTypeDeclarations[2].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[6].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[6].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[7].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[9].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[14].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[15].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[15].UTTypeTagSpecification.public.filename-extension[2]",
            "warning systemOwnedTag UTImportedTypeDeclarations[18].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[19].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[20].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[22].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[22].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[22].UTTypeTagSpecification.public.filename-extension[5]",
            "warning systemOwnedTag UTImportedTypeDeclarations[23].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[23].UTTypeTagSpecification.public.filename-extension[2]",
            // "public.mpeg-4-audio " (io.iina.mpeg4-audio) has a trailing space:
            // not a well-formed identifier, so the conformance is lost.
            "error malformedIdentifier UTImportedTypeDeclarations[25].UTTypeConformsTo[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[25].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[26].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[27].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[27].UTTypeTagSpecification.public.filename-extension[2]",
            "warning systemOwnedTag UTImportedTypeDeclarations[27].UTTypeTagSpecification.public.filename-extension[3]",
            "warning systemOwnedTag UTImportedTypeDeclarations[27].UTTypeTagSpecification.public.filename-extension[4]",
            "warning systemOwnedTag UTImportedTypeDeclarations[28].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[28].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[29].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[29].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[32].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[34].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[34].UTTypeTagSpecification.public.filename-extension[1]",
            "warning systemOwnedTag UTImportedTypeDeclarations[35].UTTypeTagSpecification.public.filename-extension[0]",
            "warning systemOwnedTag UTImportedTypeDeclarations[35].UTTypeTagSpecification.public.mime-type[0]",
            // "Matroska audio" lists "" in LSItemContentTypes: an empty identifier.
            "error malformedIdentifier CFBundleDocumentTypes[1].LSItemContentTypes[0]",
        ])
    }

    @Test func sequelAce() throws {
        #expect(try findings("Sequel-Ace/Info.plist") == [
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
        #expect(try findings("Skim/Info.plist") == [
            // "PDF Bundle": net.sourceforge.skim-app.pdfd conforms to com.apple.package
            // (its own export) but the document type does not set LSTypeIsPackage.
            "warning packageMismatch CFBundleDocumentTypes[1].LSItemContentTypes[0]",
            // "Notes as RTFD": com.apple.rtfd is a package type, LSTypeIsPackage not set.
            "warning packageMismatch CFBundleDocumentTypes[9].LSItemContentTypes[0]",
        ])
    }

    @Test func textEdit() throws {
        #expect(try findings("TextEdit-AppleSample/Info-TextEdit.plist") == [
            // org.openoffice.text and org.openoffice.text-template (the old
            // OpenOffice.org formats) are named but declared neither by the sample
            // nor among ICTKit's system types.
            "warning undeclaredDocumentType CFBundleDocumentTypes[5].LSItemContentTypes[1]",
            "warning undeclaredDocumentType CFBundleDocumentTypes[5].LSItemContentTypes[2]",
        ])
    }

    @Test func iterm2() throws {
        // Clean: legacy document types by extension only, plus public.folder,
        // public.data, public.unix-executable and public.html, all system types.
        #expect(try findings("iTerm2/release-iTerm2.plist") == [])
    }
}
