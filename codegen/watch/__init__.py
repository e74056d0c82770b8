"""The watch stage: re-list a server on `list_changed` and republish its snapshot and package."""
