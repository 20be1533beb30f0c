extension TypeDeclarationSet {
    /// The text of `Schemas/ict-types.plist`: the `.ict` document type's
    /// declarations (docs/ict-format.md section 8), built in (a test keeps the
    /// two the same).
    public static let ictTypeDeclarationsText: String = #"""
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!--
  The .ict document type's declarations, as an Info.plist fragment: those of
  docs/ict-format.md section 8 (the original app's Info.plist). One ICTKit
  addition: the MIME type application/x-icloudtest-doc, the name
  Schemas/ict.mime.xml gives the type for freedesktop shared-mime-info, so
  the two descriptions of the type match by MIME type. The UniformTypes
  module embeds this file (ICTTypeDeclarations.swift; a test keeps the two
  the same).
-->
<plist version="1.0">
<dict>
	<key>CFBundleDocumentTypes</key>
	<array>
		<dict>
			<key>CFBundleTypeExtensions</key>
			<array>
				<string>ict</string>
			</array>
			<key>CFBundleTypeName</key>
			<string>iCloudTest Document</string>
			<key>LSHandlerRank</key>
			<string>Owner</string>
			<key>LSItemContentTypes</key>
			<array>
				<string>com.appmosphereinc.icloudtest.doc</string>
			</array>
			<key>LSTypeIsPackage</key>
			<true/>
		</dict>
	</array>
	<key>UTExportedTypeDeclarations</key>
	<array>
		<dict>
			<key>UTTypeConformsTo</key>
			<array>
				<string>com.apple.package</string>
			</array>
			<key>UTTypeDescription</key>
			<string>iCloudTest Document</string>
			<key>UTTypeIdentifier</key>
			<string>com.appmosphereinc.icloudtest.doc</string>
			<key>UTTypeTagSpecification</key>
			<dict>
				<key>public.filename-extension</key>
				<array>
					<string>ict</string>
				</array>
				<key>public.mime-type</key>
				<array>
					<string>application/x-icloudtest-doc</string>
				</array>
			</dict>
		</dict>
	</array>
</dict>
</plist>
"""#
}
