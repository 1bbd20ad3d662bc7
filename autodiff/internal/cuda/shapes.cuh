// autodiff's shape ops and softmax on the device (transpose, concat,
// slice, softmax): included at the end of kernels.cu, after INSTANTIATE.
// Each kernel follows kernels.cu's rules: templated on T, arithmetic in
// double, grid-stride loops correct for any launch shape (the CPU
// emulator runs every launch as one thread).
