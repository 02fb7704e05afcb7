"""apex.amp on the NPU: amp.initialize, amp.scale_loss, amp.master_params, amp.state_dict."""
from apex.amp.frontend import initialize, load_state_dict, master_params, state_dict
from apex.amp.handle import scale_loss

__all__ = ["initialize", "scale_loss", "master_params", "state_dict", "load_state_dict"]
