# Sourced by the device scripts on the lent GPU machine: enables NVIDIA's OpenCL there (its ICD is
# installed but not registered) and prints the date and the GPU, so every output names its device.
# Sets `prefix`, the card's name in dataset names: h200 on an H200, h100 elsewhere.
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
prefix=$(nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 && echo h200 || echo h100)
