# placeholder: filled by the issue that owns this file
