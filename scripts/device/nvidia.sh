# Sourced by the device scripts on the lent GPU machine: enables NVIDIA's OpenCL there (its ICD is
# installed but not registered) and prints the date and the GPU, so every output names its device.
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
date -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
