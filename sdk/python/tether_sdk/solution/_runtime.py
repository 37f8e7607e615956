"""State of the running host that user code reaches through
``call_capability``: the frame writer and the pending capability table.
Set once by the host before the user file is imported."""

writer = None  # FrameWriter on the private protocol fd
pending = None  # _conduit.Conduit: capability ids and the reading role
