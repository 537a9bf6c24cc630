"""What running a program needs besides the IR: the versioned op registry and Paddle parameters."""
