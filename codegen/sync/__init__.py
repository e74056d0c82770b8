"""The sync stage: snapshot then generate, publishing each server's snapshot and package together."""
