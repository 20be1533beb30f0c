/// The text of `Schemas/ict-document.schema.plist`, built in so a relocated
/// program needs no file beside it (a test keeps the two the same).
let ictDocumentSchemaText: String = #"""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <!--
      What a valid .ict document is (docs/ict-format.md), read by `ict validate`
      and ICTDocument's DocumentValidator. Another data + metadata package format
      is checked by writing another file of this shape and passing it with
      `ict validate` with the schema option.

      entries[]: name, required, rootKey (the $top key), className, classChain,
        versionKey + versions (the supported values), keys[].
      keys[]: key, type (integer | number | string | data | png), required.
        Absent and $null both mean "none"; a required key must hold a value.
      rules[]: consistency between entries:
        equal:     a and b ("entry:key") hold the same value when both are set.
        thumbnail: thumbnail ("entry:key") is width x height and shows image
                   ("entry:key") resized, within minimumPSNR decibels.
    -->
    <plist version="1.0">
    <dict>
    	<key>name</key>
    	<string>.ict document</string>
    	<key>packageExtension</key>
    	<string>ict</string>
    	<key>entries</key>
    	<array>
    		<dict>
    			<key>name</key>
    			<string>ctdocument.metadata</string>
    			<key>required</key>
    			<true/>
    			<key>rootKey</key>
    			<string>DATA</string>
    			<key>className</key>
    			<string>CTMetadata</string>
    			<key>classChain</key>
    			<array>
    				<string>CTMetadata</string>
    				<string>NSObject</string>
    			</array>
    			<key>versionKey</key>
    			<string>VERSION</string>
    			<key>versions</key>
    			<array>
    				<integer>1</integer>
    			</array>
    			<key>keys</key>
    			<array>
    				<dict>
    					<key>key</key>
    					<string>VERSION</string>
    					<key>type</key>
    					<string>integer</string>
    					<key>required</key>
    					<true/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>THUMBNAIL</string>
    					<key>type</key>
    					<string>png</string>
    					<key>required</key>
    					<false/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>DISPLAY NAME</string>
    					<key>type</key>
    					<string>string</string>
    					<key>required</key>
    					<false/>
    				</dict>
    			</array>
    		</dict>
    		<dict>
    			<key>name</key>
    			<string>ctdocument.data</string>
    			<key>required</key>
    			<true/>
    			<key>rootKey</key>
    			<string>DATA</string>
    			<key>className</key>
    			<string>CTData</string>
    			<key>classChain</key>
    			<array>
    				<string>CTData</string>
    				<string>NSObject</string>
    			</array>
    			<key>versionKey</key>
    			<string>VERSION</string>
    			<key>versions</key>
    			<array>
    				<integer>1</integer>
    			</array>
    			<key>keys</key>
    			<array>
    				<dict>
    					<key>key</key>
    					<string>VERSION</string>
    					<key>type</key>
    					<string>integer</string>
    					<key>required</key>
    					<true/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>FIRST_NAME</string>
    					<key>type</key>
    					<string>string</string>
    					<key>required</key>
    					<false/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>LAST_NAME</string>
    					<key>type</key>
    					<string>string</string>
    					<key>required</key>
    					<false/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>DISPLAY_NAME</string>
    					<key>type</key>
    					<string>string</string>
    					<key>required</key>
    					<false/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>FAVORITE_NUMBER</string>
    					<key>type</key>
    					<string>number</string>
    					<key>required</key>
    					<false/>
    				</dict>
    				<dict>
    					<key>key</key>
    					<string>PHOTO</string>
    					<key>type</key>
    					<string>png</string>
    					<key>required</key>
    					<false/>
    				</dict>
    			</array>
    		</dict>
    	</array>
    	<key>rules</key>
    	<array>
    		<dict>
    			<key>rule</key>
    			<string>equal</string>
    			<key>a</key>
    			<string>ctdocument.metadata:DISPLAY NAME</string>
    			<key>b</key>
    			<string>ctdocument.data:DISPLAY_NAME</string>
    		</dict>
    		<dict>
    			<key>rule</key>
    			<string>thumbnail</string>
    			<key>thumbnail</key>
    			<string>ctdocument.metadata:THUMBNAIL</string>
    			<key>image</key>
    			<string>ctdocument.data:PHOTO</string>
    			<key>width</key>
    			<integer>280</integer>
    			<key>height</key>
    			<integer>280</integer>
    			<key>minimumPSNR</key>
    			<real>20</real>
    		</dict>
    	</array>
    </dict>
    </plist>

    """#
